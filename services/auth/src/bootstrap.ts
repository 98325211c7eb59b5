import { randomUUID } from 'node:crypto';
import { migrate, type Database } from '@trove/db';
import { fields, type Config } from '@trove/platform';
import { newTenantPlan } from './domain/deployment';
import { issueKey } from './key-service';
import { authMigrations } from './migrations';
import type { Db } from './store/schema';

export interface BootstrapResult {
  tenant_id: string;
  key_id: string;
  /** The admin key value; print it once, it cannot be read back. */
  key: string;
}

/**
 * Production bootstrap: creates a tenant and its first admin key, without the gateway or a running auth service.
 * Given the id of an existing tenant, it issues another admin key for it (recovery after losing every admin key)
 * and leaves the tenant's name and plan as they are.
 */
export async function createTenantWithAdminKey(
  database: Database,
  config: Config,
  opts: { name: string; tenantId?: string },
): Promise<BootstrapResult> {
  const name = opts.name.trim();
  if (!name) throw new Error('A tenant name is required');
  if (opts.tenantId !== undefined && !fields.uuid.safeParse(opts.tenantId).success) throw new Error('The tenant id must be a UUID');
  await migrate(database, 'auth', authMigrations);
  const tenantId = opts.tenantId?.toLowerCase() ?? randomUUID();
  const db: Db = database.db;
  const { row, value } = await issueKey(
    db,
    config.API_KEY_SALT,
    { id: tenantId, name, plan: newTenantPlan(config) },
    { name: 'Bootstrap admin key', scopes: ['admin'], expiresAt: null },
  );
  return { tenant_id: tenantId, key_id: row.id, key: value };
}
