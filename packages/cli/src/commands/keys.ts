import { InvalidArgumentError, Option, type Command } from 'commander';
import { readConfig, saveProfile } from '../config.js';
import { common, type Cli, type CommonOptions, type Session } from '../context.js';
import { fields, table, when } from '../output.js';

const SCOPES = ['search', 'upload', 'records', 'admin'] as const;
type Scope = (typeof SCOPES)[number];

/** `--scopes search,upload`: known scopes, none twice. */
export function scopeList(value: string): Scope[] {
  const scopes = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (scopes.length === 0 || unknown.length > 0) throw new InvalidArgumentError(`scopes are a comma-separated list of ${SCOPES.join(', ')}`);
  return [...new Set(scopes)] as Scope[];
}

/** An issued key as both routes answer it. */
interface Issued {
  id: string;
  name: string;
  key: string;
  scopes: string[];
  expires_at?: string | null;
  message: string;
}

export function registerKeys(program: Command, cli: Cli): void {
  const keys = program
    .command('keys')
    .summary("manage the tenant's API keys")
    .description("Creates, lists, rotates and revokes the tenant's API keys: with an admin API key, else with the portal sign-in.");

  common(keys.command('create'))
    .summary('create an API key; its value is shown this once')
    .requiredOption('--name <name>', "the key's name")
    .addOption(new Option('--scopes <list>', 'comma-separated scopes: search, upload, records, admin').makeOptionMandatory().argParser(scopeList))
    .option('--expires-at <datetime>', 'when the key stops working (ISO 8601); never by default')
    .action(async (opts: CommonOptions & { name: string; scopes: Scope[]; expiresAt?: string }) => {
      const { client, auth } = cli.client(opts, 'either');
      const body = { name: opts.name, scopes: opts.scopes, ...(opts.expiresAt !== undefined && { expires_at: opts.expiresAt }) };
      const created: Issued = auth === 'key' ? await client.keys.create(body) : await client.portal.createKey(body);
      cli.print(opts, created, () => issued(created));
    });

  common(keys.command('list'))
    .summary('list the active API keys (never their values)')
    .action(async (opts: CommonOptions) => {
      const { client, auth, session } = cli.client(opts, 'either');
      const answer = auth === 'key' ? await client.keys.list() : await client.call('GET', '/api/v1/portal/keys');
      const list = Array.isArray(answer) ? answer : answer.keys;
      cli.print(opts, answer, () =>
        list.length === 0
          ? 'No active API keys.\n'
          : table(
              ['id', 'name', 'scopes', 'created', 'last used', 'expires'],
              list.map((k) => [
                `${k.id}${k.id === session.profile?.key_id && session.keySource === 'profile' ? ' (this CLI)' : ''}`,
                k.name,
                k.scopes.join(','),
                when(k.created_at),
                when(k.last_used_at) || 'never',
                when(k.expires_at) || 'never',
              ]),
            ),
      );
    });

  common(keys.command('rotate'))
    .summary('give a key a new value (shown this once); the old value stops working at once')
    .argument('<key-id>', "the key's id (trove keys list)")
    .action(async (keyId: string, opts: CommonOptions) => {
      const { client, auth, session } = cli.client(opts, 'either');
      const rotated: Issued = auth === 'key' ? await client.keys.rotate(keyId) : await client.portal.rotateKey(keyId);
      const own = isOwnKey(session, rotated.id);
      // The CLI's own key: its old value no longer works, so the profile keeps the new one.
      if (own) storeKey(cli, session, rotated.key);
      cli.print(opts, rotated, () => issued(rotated) + (own ? 'This was the key this CLI signs in with: the profile now holds the new value.\n' : ''));
    });

  common(keys.command('revoke'))
    .summary('revoke a key: it stops working at once')
    .argument('<key-id>', "the key's id (trove keys list)")
    .action(async (keyId: string, opts: CommonOptions) => {
      const { client, auth, session } = cli.client(opts, 'either');
      if (auth === 'key') await client.keys.revoke(keyId);
      else await client.portal.revokeKey(keyId);
      const own = isOwnKey(session, keyId);
      if (own) storeKey(cli, session, undefined);
      cli.print(opts, { id: keyId, revoked: true }, () =>
        `Revoked the API key ${keyId}.\n${own ? 'It was the key this CLI signed in with: the profile no longer holds a key (run `trove login` again).\n' : ''}`,
      );
    });
}

/** A key's value with the warning that it is shown once. */
function issued(key: Issued): string {
  return (
    fields([
      ['id', key.id],
      ['name', key.name],
      ['scopes', key.scopes.join(', ')],
      ['expires', key.expires_at === undefined ? undefined : when(key.expires_at) || 'never'],
      ['key', key.key],
    ]) + 'Store this key now: it is shown only once.\n'
  );
}

function isOwnKey(session: Session, keyId: string): boolean {
  return session.keySource === 'profile' && session.profile?.key_id !== undefined && session.profile.key_id.toLowerCase() === keyId.toLowerCase();
}

/** Replaces (or, undefined, drops) the profile's key value. */
function storeKey(cli: Cli, session: Session, key: string | undefined): void {
  const profile = readConfig(cli.io.env).profiles[session.profileName];
  if (!profile) return;
  if (key === undefined) {
    const { api_key: _key, key_id: _id, key_name: _name, key_scopes: _scopes, key_created_by_login: _created, ...rest } = profile;
    saveProfile(cli.io.env, session.profileName, rest);
  } else saveProfile(cli.io.env, session.profileName, { ...profile, api_key: key });
}
