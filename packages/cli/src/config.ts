import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { CliError } from './errors.js';

/** What `trove login` stores for one server and account. Key values and tokens are never printed from here. */
export interface Profile {
  /** The gateway's URL. */
  url: string;
  /** An API key: the one given to `trove login`, or the one it created after a portal sign-in. */
  api_key?: string;
  /** Known when this CLI created the key (portal sign-in); `trove logout` revokes such a key. */
  key_id?: string;
  key_name?: string;
  key_scopes?: string[];
  key_created_by_login?: boolean;
  tenant_id?: string;
  /** A portal sign-in token, for the routes only a signed-in person may use (replace, collections delete). */
  portal_token?: string;
  /** When the portal token expires (ISO 8601). */
  portal_token_expires_at?: string;
  email?: string;
}

export interface ConfigFile {
  profiles: Record<string, Profile>;
}

export type Env = Record<string, string | undefined>;

/** `$XDG_CONFIG_HOME/trove`, else `~/.config/trove` (the XDG Base Directory default; a relative XDG_CONFIG_HOME is ignored, as the spec says). */
export function configDir(env: Env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.config');
  return join(base, 'trove');
}

export function configPath(env: Env): string {
  return join(configDir(env), 'config.json');
}

/** The stored profiles; none when there is no file yet. */
export function readConfig(env: Env): ConfigFile {
  const path = configPath(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw new CliError(`cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as Partial<ConfigFile>;
    if (typeof parsed !== 'object' || parsed === null || typeof parsed.profiles !== 'object' || parsed.profiles === null) throw new Error('no "profiles" object');
    return { profiles: parsed.profiles };
  } catch (err) {
    throw new CliError(`${path} is not a trove configuration (${(err as Error).message}); remove it and run \`trove login\` again`);
  }
}

/**
 * Writes the profiles: the folder made (or narrowed) to 0700 and the file written whole under another name with mode
 * 0600, then renamed over the old one, so no reader sees half a file and no other user can read a key at any moment.
 */
export function writeConfig(env: Env, config: ConfigFile): string {
  const dir = configDir(env);
  const path = configPath(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
  return path;
}

/** Stores one profile (replacing what it held), and answers the file's path. */
export function saveProfile(env: Env, name: string, profile: Profile): string {
  const config = readConfig(env);
  config.profiles[name] = profile;
  return writeConfig(env, config);
}

/** Removes one profile; false when there was none of that name. */
export function removeProfile(env: Env, name: string): boolean {
  const config = readConfig(env);
  if (!(name in config.profiles)) return false;
  delete config.profiles[name];
  writeConfig(env, config);
  return true;
}
