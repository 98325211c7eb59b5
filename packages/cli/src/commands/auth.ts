import { hostname } from 'node:os';
import { TroveError, type TroveClient } from '@trove/client';
import { Option, type Command } from 'commander';
import { readConfig, removeProfile, saveProfile, type Profile } from '../config.js';
import { normaliseUrl, type Cli, type CommonOptions } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { fields, when } from '../output.js';
import { ask, readAll } from '../prompt.js';
import { scopeList } from './keys.js';

/** The server a newcomer's `pnpm start` runs. */
const LOCAL = 'http://localhost:8080';

interface LoginOptions extends CommonOptions {
  apiKey?: string;
  email?: string;
  passwordStdin?: boolean;
  signup?: boolean;
  createKey: boolean;
  keyName?: string;
  scopes: string[];
}

export function registerAuth(program: Command, cli: Cli): void {
  program
    .command('login')
    .summary('sign in to a Trove server and store the credentials')
    .description(
      'Signs in to a Trove server and stores the credentials in the profile (a file of mode 0600 under ' +
        '$XDG_CONFIG_HOME/trove, else ~/.config/trove). With an API key: checks it and stores it. With a portal ' +
        "account's email and password: stores the portal sign-in (it expires) and creates an API key for this CLI " +
        '(unless --no-create-key), so that every command works; `trove logout` revokes that key. Asks on the terminal ' +
        'for what the options do not give.',
    )
    .argument('[url]', `the server's URL (default: $TROVE_URL, else asked, else ${LOCAL})`)
    .option('--api-key <key>', 'sign in with this API key (sk_live_...)')
    .option('--email <email>', "sign in with a portal account's email; the password is asked, or read with --password-stdin")
    .option('--password-stdin', 'read the password from standard input')
    .option('--signup', 'create the portal account first (a tenant of its own), then sign in')
    .option('--no-create-key', 'after a portal sign-in, store only the portal sign-in (no API key: the key commands will not work)')
    .option('--key-name <name>', 'the name of the API key a portal sign-in creates (default: "trove cli (<host>)")')
    .addOption(new Option('--scopes <list>', 'the scopes of the API key a portal sign-in creates').default(['admin'], 'admin').argParser(scopeList))
    .option('--profile <name>', 'the profile to store the login in (default: $TROVE_PROFILE, else "default")')
    .option('--json', 'print what was stored (never the key or token) as JSON')
    .action((url: string | undefined, opts: LoginOptions) => login(cli, url, opts));

  program
    .command('logout')
    .summary('forget the stored login (and revoke the API key login created)')
    .description(
      'Removes the profile from the configuration file. An API key that `trove login` created after a portal sign-in ' +
        'is revoked first (unless --keep-key); a key you gave to `trove login` is yours and is left alone.',
    )
    .option('--keep-key', 'do not revoke the API key login created')
    .option('--profile <name>', 'the profile to remove (default: $TROVE_PROFILE, else "default")')
    .option('--json', 'print what was done as JSON')
    .action((opts: CommonOptions & { keepKey?: boolean }) => logout(cli, opts));

  program
    .command('whoami')
    .summary('show the server, profile and credentials in use')
    .description("Shows the server's URL, the profile, and whom the credentials stand for: the API key's tenant and scopes, the portal account and when its sign-in expires.")
    .option('--json', 'print it as JSON')
    .option('--profile <name>', 'the stored login to use (default: $TROVE_PROFILE, else "default")')
    .option('--url <url>', "the server's URL (default: $TROVE_URL, else the profile's)")
    .action((opts: CommonOptions) => whoami(cli, opts));
}

async function login(cli: Cli, urlArgument: string | undefined, opts: LoginOptions): Promise<void> {
  const { io } = cli;
  const interactive = io.stdin.isTTY === true && !opts.passwordStdin;
  let url = normaliseUrl(urlArgument ?? (io.env.TROVE_URL || undefined));
  if (!url && interactive) url = normaliseUrl((await ask(io.stdin, io.stderr, `Trove URL [${LOCAL}]: `)) || LOCAL);
  url ??= LOCAL;
  if (opts.apiKey !== undefined && opts.email !== undefined) throw new UsageError('give --api-key or --email, not both');

  let apiKey = opts.apiKey;
  let email = opts.email;
  if (apiKey === undefined && email === undefined) {
    if (!interactive) throw new UsageError('login needs --api-key <key> or --email <email> (there is no terminal to ask on)');
    // A key is typed unseen; an empty answer means a portal account instead, whose email is seen as it is typed.
    const answer = await ask(io.stdin, io.stderr, 'API key (or press Enter to sign in with a portal email and password): ', { hidden: true });
    if (answer !== '') apiKey = answer;
    else {
      email = await ask(io.stdin, io.stderr, 'Email: ');
      if (email === '') throw new UsageError('no API key and no email given');
    }
  }

  const profileName = cli.profileName(opts);
  const profile: Profile = apiKey !== undefined ? await keyLogin(cli, url, apiKey) : await portalLogin(cli, url, email!, opts);
  const path = saveProfile(io.env, profileName, profile);

  const shown = {
    profile: profileName,
    url,
    tenant_id: profile.tenant_id,
    email: profile.email,
    api_key: profile.api_key ? { key_id: profile.key_id, name: profile.key_name, scopes: profile.key_scopes, created_by_login: profile.key_created_by_login === true } : null,
    portal_token_expires_at: profile.portal_token_expires_at,
    config_file: path,
  };
  cli.print(opts, shown, () => {
    const who = profile.email ? `${profile.email} (tenant ${profile.tenant_id})` : `tenant ${profile.tenant_id}`;
    const lines = [`Signed in to ${url} as ${who}; stored in ${path} (profile "${profileName}").`];
    if (profile.key_created_by_login) lines.push(`Created the API key "${profile.key_name}" (${profile.key_scopes?.join(', ')}) for this CLI; \`trove logout\` revokes it.`);
    if (profile.portal_token_expires_at) lines.push(`The portal sign-in expires at ${when(profile.portal_token_expires_at)}${profile.api_key ? '; the API key does not' : ''}.`);
    return `${lines.join('\n')}\n`;
  });
}

/** Checks a key by asking for its tenant's usage (any valid key may), and answers the profile to store. */
async function keyLogin(cli: Cli, url: string, key: string): Promise<Profile> {
  const trimmed = key.trim();
  if (trimmed === '') throw new UsageError('the API key is empty');
  const usage = await cli.clientFor(url, { apiKey: trimmed }).usage();
  return { url, api_key: trimmed, tenant_id: usage.tenant_id };
}

async function portalLogin(cli: Cli, url: string, email: string, opts: LoginOptions): Promise<Profile> {
  const { io } = cli;
  let password: string;
  if (opts.passwordStdin) password = await readAll(io.stdin);
  else if (io.stdin.isTTY) password = await ask(io.stdin, io.stderr, `Password for ${email}: `, { hidden: true });
  else throw new UsageError('a portal sign-in needs the password: pass it on standard input with --password-stdin (there is no terminal to ask on)');
  if (password === '') throw new UsageError('the password is empty');

  const client = cli.clientFor(url);
  const session = opts.signup ? await client.portal.signUp({ email, password }) : await client.portal.signIn({ email, password });
  const profile: Profile = {
    url,
    tenant_id: session.account.tenant_id,
    email: session.account.email,
    portal_token: session.token,
    portal_token_expires_at: new Date(Date.now() + session.expires_in * 1000).toISOString(),
  };
  if (!opts.createKey) return profile;
  const name = opts.keyName ?? `trove cli (${hostname()})`;
  const created = await client.portal.createKey({ name, scopes: opts.scopes as ('search' | 'upload' | 'records' | 'admin')[] });
  return { ...profile, api_key: created.key, key_id: created.id, key_name: created.name, key_scopes: created.scopes, key_created_by_login: true };
}

async function logout(cli: Cli, opts: CommonOptions & { keepKey?: boolean }): Promise<void> {
  const profileName = cli.profileName(opts);
  const profile = readConfig(cli.io.env).profiles[profileName];
  if (!profile) {
    cli.print(opts, { profile: profileName, removed: false, key_revoked: false }, () => `Profile "${profileName}" holds no login; nothing to do.\n`);
    return;
  }
  let revoked = false;
  if (profile.key_created_by_login && profile.key_id && profile.api_key && !opts.keepKey) {
    try {
      await revokeOwnKey(cli, profile);
      revoked = true;
    } catch (err) {
      // The login is forgotten all the same: a server that is gone must not keep a person signed in.
      cli.note(`trove: could not revoke the API key ${profile.key_id} (${(err as Error).message}); revoke it with \`trove keys revoke ${profile.key_id}\` from another login`);
    }
  }
  removeProfile(cli.io.env, profileName);
  cli.print(opts, { profile: profileName, removed: true, key_revoked: revoked }, () =>
    `Signed out of ${profile.url} (profile "${profileName}")${revoked ? `; revoked the API key "${profile.key_name}" that login created` : ''}.\n`,
  );
}

/** Revokes the key login created: with the portal sign-in while it lasts, else with the key itself (an admin key may). */
async function revokeOwnKey(cli: Cli, profile: Profile): Promise<void> {
  const live = profile.portal_token && profile.portal_token_expires_at && Date.parse(profile.portal_token_expires_at) > Date.now();
  const client = cli.clientFor(profile.url, { apiKey: profile.api_key, portalToken: live ? profile.portal_token : undefined });
  try {
    if (live) await client.portal.revokeKey(profile.key_id!);
    else await client.keys.revoke(profile.key_id!);
  } catch (err) {
    // Already revoked (by hand, or by a rotate elsewhere): nothing left to do.
    if (err instanceof TroveError && (err.status === 404 || err.status === 401)) return;
    throw err;
  }
}

async function whoami(cli: Cli, opts: CommonOptions): Promise<void> {
  const session = cli.session(opts);
  if (!session.url) throw new CliError('not signed in: run `trove login`, or set TROVE_URL and TROVE_API_KEY');
  if (!session.apiKey && !session.portalToken) throw new CliError(`not signed in (profile "${session.profileName}"): run \`trove login\`, or set TROVE_API_KEY`);
  const profile = session.profile;
  const fromProfile = session.keySource === 'profile';

  let key: Record<string, unknown> | null = null;
  if (session.apiKey) {
    const client = cli.clientFor(session.url, { apiKey: session.apiKey });
    const usage = await client.usage();
    const scopes = fromProfile && profile?.key_scopes ? profile.key_scopes : await probeScopes(client);
    key = {
      source: session.keySource,
      tenant_id: usage.tenant_id,
      key_id: fromProfile ? profile?.key_id ?? null : null,
      name: fromProfile ? profile?.key_name ?? null : null,
      scopes,
    };
  }

  let portal: Record<string, unknown> | null = null;
  if (session.portalToken && profile) {
    const expiresAt = profile.portal_token_expires_at ?? null;
    const expired = expiresAt !== null && Date.parse(expiresAt) <= Date.now();
    portal = { email: profile.email ?? null, tenant_id: profile.tenant_id ?? null, expires_at: expiresAt, expired };
    if (!expired) {
      const account = await cli.clientFor(session.url, { portalToken: session.portalToken }).portal.account();
      portal = { ...account, expires_at: expiresAt, expired };
    }
  }

  const answer = { profile: session.profileName, url: session.url, config_file: cli.configFile(), api_key: key, portal };
  cli.print(opts, answer, () => {
    const rows: [string, unknown][] = [
      ['url', session.url],
      ['profile', `${session.profileName}${profile ? '' : ' (not stored: from the environment)'}`],
    ];
    if (key) {
      rows.push(['api key', `${key.name ? `"${String(key.name)}" ` : ''}from ${key.source === 'profile' ? 'the profile' : 'TROVE_API_KEY'}`]);
      rows.push(['tenant', key.tenant_id]);
      rows.push(['scopes', (key.scopes as string[]).join(', ') || 'none found']);
    } else rows.push(['api key', 'none (key commands will not work)']);
    if (portal) {
      rows.push(['portal', `${String(portal.email)}${portal.display_name ? ` (${String(portal.display_name)})` : ''}`]);
      if (!key) rows.push(['tenant', portal.tenant_id]);
      rows.push([portal.expired ? 'portal expired' : 'portal expires', `${when(portal.expires_at as string)}${portal.expired ? ': run `trove login --email` again' : ''}`]);
    }
    rows.push(['config', cli.configFile()]);
    return fields(rows);
  });
}

/**
 * The scopes of a key the CLI did not create (the API has no route telling a key its own scopes): each scope is tried
 * on a read that changes nothing and is refused with 403 before anything is read when the key lacks it. admin implies
 * every other scope.
 */
async function probeScopes(client: TroveClient): Promise<string[]> {
  const allowed = async (read: () => Promise<unknown>): Promise<boolean> => {
    try {
      await read();
      return true;
    } catch (err) {
      if (err instanceof TroveError && err.status === 403) return false;
      // Past the scope check: the key may (a 404 or 422 of the read itself).
      if (err instanceof TroveError && err.status < 500 && err.status !== 401 && err.status !== 429) return true;
      throw err;
    }
  };
  if (await allowed(() => client.keys.list())) return ['admin'];
  const probes: [string, () => Promise<unknown>][] = [
    ['records', () => client.records.list({ limit: 1 })],
    ['upload', () => client.uploads.list({ limit: 1 })],
    // A search without its query is refused with 422 by the search service, after the gateway checked the scope.
    ['search', () => client.call('GET', '/api/v1/search/{collection}', { params: { path: { collection: 'scope-probe' }, query: {} as { q: string } } })],
  ];
  const found: string[] = [];
  for (const [scope, read] of probes) if (await allowed(read)) found.push(scope);
  return found;
}
