import { randomUUID } from 'node:crypto';
import type { EventBus } from '@trove/bus';
import { TOPICS, type AuthEvent, type Plan } from '@trove/contracts';
import type { Identity, Scope } from '@trove/platform';
import { LAST_USED_WRITE_INTERVAL_MS, generateKeyValue, hashKeyValue, isExpired, shouldRecordUse } from './domain/key-rules';
import { findKeyByHash, insertKey, listActiveKeys, replaceKeyHash, revokeKey, touchLastUsed, type ApiKeyRow } from './store/api-keys';
import type { Db } from './store/schema';
import { ensureTenant } from './store/tenants';

export interface KeyServiceOptions {
  db: Db;
  bus: EventBus;
  apiKeySalt: string;
  /** Plan given to a tenant created by its first key (development bootstrap). */
  newTenantPlan: Plan;
}

export interface IssuedKey {
  row: ApiKeyRow;
  /** The key value; exists only here, on its way into the create or rotate response. */
  value: string;
}

export type Verification =
  | { ok: true; tenantId: string; keyId: string; scopes: Scope[]; plan: Plan; expiresAt: Date | null }
  | { ok: false; reason: 'unknown' | 'revoked' | 'expired' };

export interface NewKey {
  name: string;
  scopes: Scope[];
  expiresAt: Date | null;
}

/** Issues a key, creating its tenant first when the tenant is new (an existing tenant keeps its name and plan). */
export async function issueKey(
  db: Db,
  apiKeySalt: string,
  tenant: { id: string; name: string | null; plan: Plan },
  input: NewKey,
): Promise<IssuedKey> {
  const value = generateKeyValue();
  const row = await db.transaction().execute(async (trx) => {
    await ensureTenant(trx, tenant);
    return insertKey(trx, {
      id: randomUUID(),
      tenant_id: tenant.id,
      name: input.name,
      key_hash: hashKeyValue(value, apiKeySalt),
      scopes: input.scopes,
      expires_at: input.expiresAt,
    });
  });
  return { row, value };
}

/** API key use cases: issue, list, rotate, revoke and verify, each write with its event in one transaction. */
export class KeyService {
  private readonly db: Db;

  constructor(private readonly opts: KeyServiceOptions) {
    this.db = opts.db;
  }

  create(identity: Identity, input: NewKey): Promise<IssuedKey> {
    return issueKey(this.db, this.opts.apiKeySalt, { id: identity.tenantId, name: null, plan: this.opts.newTenantPlan }, input);
  }

  list(tenantId: string): Promise<ApiKeyRow[]> {
    return listActiveKeys(this.db, tenantId);
  }

  /** A new value for the same key; undefined when the tenant has no such active key. */
  async rotate(tenantId: string, keyId: string): Promise<IssuedKey | undefined> {
    const value = generateKeyValue();
    const row = await this.db.transaction().execute(async (trx) => {
      const updated = await replaceKeyHash(trx, tenantId, keyId, hashKeyValue(value, this.opts.apiKeySalt));
      if (updated) await this.announce(trx, { kind: 'key_rotated', tenant_id: tenantId, key_id: keyId });
      return updated;
    });
    return row && { row, value };
  }

  /** False when the tenant has no such active key. */
  async revoke(tenantId: string, keyId: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const revoked = await revokeKey(trx, tenantId, keyId);
      if (revoked) await this.announce(trx, { kind: 'key_revoked', tenant_id: tenantId, key_id: keyId });
      return revoked;
    });
  }

  async verify(value: string): Promise<Verification> {
    const key = await findKeyByHash(this.db, hashKeyValue(value, this.opts.apiKeySalt));
    if (!key) return { ok: false, reason: 'unknown' };
    if (key.revoked_at) return { ok: false, reason: 'revoked' };
    const now = new Date(key.now);
    const expiresAt = key.expires_at && new Date(key.expires_at);
    if (isExpired(expiresAt, now)) return { ok: false, reason: 'expired' };
    if (shouldRecordUse(key.last_used_at && new Date(key.last_used_at), now)) {
      await touchLastUsed(this.db, key.id, LAST_USED_WRITE_INTERVAL_MS);
    }
    return { ok: true, tenantId: key.tenant_id, keyId: key.id, scopes: key.scopes, plan: key.plan, expiresAt };
  }

  private announce(trx: Parameters<EventBus['publishInTransaction']>[0], event: AuthEvent): Promise<void> {
    return this.opts.bus.publishInTransaction(trx, [{ topic: TOPICS.authEvents, key: event.key_id, payload: event }]);
  }
}
