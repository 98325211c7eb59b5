import { sql } from 'kysely';
import type { Scope } from '@trove/platform';
import type { Plan } from '@trove/contracts';
import type { AuthDb } from './schema';

export interface ApiKeyRow {
  id: string;
  tenant_id: string;
  name: string;
  scopes: Scope[];
  expires_at: Date | null;
  created_at: Date;
  last_used_at: Date | null;
}

const COLUMNS = ['id', 'tenant_id', 'name', 'scopes', 'expires_at', 'created_at', 'last_used_at'] as const;

/** Not revoked and not past its expiry, judged by the database clock. */
const active = sql<boolean>`revoked_at is null and (expires_at is null or expires_at > now())`;

export async function insertKey(
  db: AuthDb,
  key: { id: string; tenant_id: string; name: string; key_hash: string; scopes: Scope[]; expires_at: Date | null },
): Promise<ApiKeyRow> {
  return db.insertInto('auth.api_keys').values(key).returning(COLUMNS).executeTakeFirstOrThrow();
}

export async function listActiveKeys(db: AuthDb, tenantId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('auth.api_keys')
    .select(COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where(active)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Gives an active key a new hash; undefined when the tenant has no such active key. */
export async function replaceKeyHash(db: AuthDb, tenantId: string, keyId: string, keyHash: string): Promise<ApiKeyRow | undefined> {
  return db
    .updateTable('auth.api_keys')
    .set({ key_hash: keyHash })
    .where('id', '=', keyId)
    .where('tenant_id', '=', tenantId)
    .where(active)
    .returning(COLUMNS)
    .executeTakeFirst();
}

/** Revokes an active key; false when the tenant has no such active key. */
export async function revokeKey(db: AuthDb, tenantId: string, keyId: string): Promise<boolean> {
  const row = await db
    .updateTable('auth.api_keys')
    .set({ revoked_at: sql`now()` })
    .where('id', '=', keyId)
    .where('tenant_id', '=', tenantId)
    .where(active)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export interface KeyForVerification extends ApiKeyRow {
  revoked_at: Date | null;
  plan: Plan;
  now: Date;
}

/** The key with this hash, with its tenant's plan and the database's current time. */
export async function findKeyByHash(db: AuthDb, keyHash: string): Promise<KeyForVerification | undefined> {
  return db
    .selectFrom('auth.api_keys as k')
    .innerJoin('auth.tenants as t', 't.id', 'k.tenant_id')
    .select([
      'k.id',
      'k.tenant_id',
      'k.name',
      'k.scopes',
      'k.expires_at',
      'k.created_at',
      'k.last_used_at',
      'k.revoked_at',
      't.plan',
      sql<Date>`now()`.as('now'),
    ])
    .where('k.key_hash', '=', keyHash)
    .executeTakeFirst();
}

/** Records a use; the condition keeps concurrent verifications from all writing within the same minute. */
export async function touchLastUsed(db: AuthDb, keyId: string, intervalMs: number): Promise<void> {
  await db
    .updateTable('auth.api_keys')
    .set({ last_used_at: sql`now()` })
    .where('id', '=', keyId)
    .where((eb) =>
      eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', sql<Date>`now() - make_interval(secs => ${intervalMs / 1000})`)]),
    )
    .execute();
}
