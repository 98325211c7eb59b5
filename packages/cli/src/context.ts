import { TroveClient } from '@trove/client';
import type { Command } from 'commander';
import { configPath, readConfig, type Env, type Profile } from './config.js';
import { CliError, UsageError } from './errors.js';
import { json, type Output } from './output.js';
import type { Input } from './prompt.js';

/** What the commands read and write: the process's streams and environment, or a test's. */
export interface Io {
  stdout: Output;
  stderr: Output;
  stdin: Input;
  env: Env;
  /** The fetch the client uses (default: the global one). */
  fetch?: typeof fetch;
}

/** The options every client command takes. */
export interface CommonOptions {
  json?: boolean;
  profile?: string;
  url?: string;
}

/** The client commands that take the common options; createProgram adds them once each command's own are defined. */
const takesCommon = new WeakSet<Command>();

/** Marks a client command as taking `--json`, `--profile` and `--url`, listed after its own options. */
export function common(command: Command): Command {
  takesCommon.add(command);
  return command;
}

/** Adds the common options to a command that `common` marked. */
export function addCommonOptions(command: Command): void {
  if (!takesCommon.has(command)) return;
  command
    .option('--json', "print the API's JSON answer on stdout (for scripts) instead of tables")
    .option('--profile <name>', 'the stored login to use (default: $TROVE_PROFILE, else "default")')
    .option('--url <url>', "the server's URL (default: $TROVE_URL, else the profile's)");
}

/** Where the credentials of one command come from: the stored profile, overridden field by field by the environment. */
export interface Session {
  profileName: string;
  profile: Profile | undefined;
  url: string | undefined;
  apiKey: string | undefined;
  /** Where the key came from, for whoami. */
  keySource: 'TROVE_API_KEY' | 'profile' | undefined;
  portalToken: string | undefined;
}

/** The state of a running command: its streams, the session it reads, and the server it last called (for errors). */
export class Cli {
  /** The server a command called, named in a connection failure. */
  lastUrl: string | undefined;

  constructor(
    readonly io: Io,
    readonly version: string,
  ) {}

  profileName(opts: CommonOptions): string {
    return opts.profile ?? this.io.env.TROVE_PROFILE ?? 'default';
  }

  configFile(): string {
    return configPath(this.io.env);
  }

  session(opts: CommonOptions): Session {
    const profileName = this.profileName(opts);
    const profile = readConfig(this.io.env).profiles[profileName];
    const envKey = this.io.env.TROVE_API_KEY || undefined;
    return {
      profileName,
      profile,
      url: normaliseUrl(opts.url ?? (this.io.env.TROVE_URL || undefined) ?? profile?.url),
      apiKey: envKey ?? profile?.api_key,
      keySource: envKey ? 'TROVE_API_KEY' : profile?.api_key ? 'profile' : undefined,
      portalToken: profile?.portal_token,
    };
  }

  /** A client of `url` with these credentials (none by default). */
  clientFor(url: string, credentials: { apiKey?: string; portalToken?: string } = {}): TroveClient {
    this.lastUrl = url;
    return new TroveClient({
      baseUrl: url,
      ...credentials,
      fetch: this.io.fetch,
      headers: { 'user-agent': `trove-cli/${this.version}` },
    });
  }

  /**
   * A client for a command, holding what it `needs`: an API key (`key`), a portal sign-in (`portal`), either, or
   * nothing but the URL (`none`: the Open API). Refuses with what to do when the session lacks it.
   */
  client(opts: CommonOptions, needs: 'key' | 'portal' | 'either' | 'none'): { client: TroveClient; session: Session; auth: 'key' | 'portal' | 'none' } {
    const session = this.session(opts);
    if (!session.url) throw new CliError('no server: run `trove login <url>`, or set TROVE_URL (or give --url)');
    const portalToken = needs === 'key' || needs === 'none' ? undefined : this.livePortalToken(session, needs === 'portal');
    if (needs === 'key' && !session.apiKey) throw notSignedIn(session);
    if (needs === 'either' && !session.apiKey && !portalToken) throw notSignedIn(session);
    const auth = needs === 'none' ? 'none' : needs === 'portal' || !session.apiKey ? 'portal' : 'key';
    const client = this.clientFor(session.url, { apiKey: needs === 'none' ? undefined : session.apiKey, portalToken });
    return { client, session, auth };
  }

  /** The profile's portal token while it is valid; a refusal saying what to do when `required` and it is missing or expired. */
  private livePortalToken(session: Session, required: boolean): string | undefined {
    const token = session.portalToken;
    const expires = session.profile?.portal_token_expires_at;
    const expired = token !== undefined && expires !== undefined && Date.parse(expires) <= Date.now();
    if (token && !expired) return token;
    if (!required) return undefined;
    const again = `trove login --email ${session.profile?.email ?? '<email>'}${session.profileName === 'default' ? '' : ` --profile ${session.profileName}`}`;
    if (expired) throw new CliError(`the portal sign-in of profile "${session.profileName}" expired at ${expires}: sign in again with \`${again}\``);
    throw new CliError(`this command needs a portal sign-in (the API lets only a signed-in person do it): run \`${again}\``);
  }

  /** Prints `value` as JSON with --json, else what `human` writes. */
  print(opts: CommonOptions, value: unknown, human: () => string): void {
    this.io.stdout.write(opts.json ? json(value) : human());
  }

  /** A line for people on stderr (progress notes, warnings), never mixed into --json's stdout. */
  note(text: string): void {
    this.io.stderr.write(`${text}\n`);
  }
}

function notSignedIn(session: Session): CliError {
  const profile = session.profileName === 'default' ? '' : ` --profile ${session.profileName}`;
  return new CliError(`not signed in with an API key: run \`trove login${profile}\`, or set TROVE_API_KEY`);
}

/** A server URL without its trailing slashes; a refusal for anything but an http(s) URL. */
export function normaliseUrl(url: string | undefined): string | undefined {
  if (url === undefined || url.trim() === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new UsageError(`"${url}" is not a URL (for example http://localhost:8080)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`"${url}" is not an http or https URL`);
  return parsed.toString().replace(/\/+$/, '');
}
