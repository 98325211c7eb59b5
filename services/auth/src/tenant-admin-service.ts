import { RECORDS_COLLECTION_STATS } from '@trove/contracts';
import type { Identity, ServiceClient } from '@trove/platform';
import type { AuthDb } from './store/schema';

/** One tenant as GET /admin/tenants lists it. */
export interface TenantSummary {
  tenant_id: string;
  /** Active records of the active generations of its collections: what the plan's record limit counts. */
  record_count: number;
  /** Its collections holding such records, by name. */
  collections: string[];
  created_at: string;
}

/**
 * The admin view of tenants. An admin key is one tenant's: it sees that tenant and no other (Trove has no operator
 * role over the API; operators use the CLI). Auth knows when the tenant was created; records, what it holds.
 */
export class TenantAdminService {
  constructor(private readonly deps: { db: AuthDb; records: ServiceClient }) {}

  async tenants(tenantId: string, requestId?: string): Promise<TenantSummary[]> {
    const tenant = await this.deps.db.selectFrom('auth.tenants').select(['id', 'created_at']).where('id', '=', tenantId).executeTakeFirst();
    if (!tenant) return [];
    const identity: Identity = { tenantId, principal: 'service:auth', scopes: ['records'] };
    const stats = await this.deps.records.call(RECORDS_COLLECTION_STATS, { identity, requestId });
    return [
      {
        tenant_id: tenant.id,
        record_count: stats.total_records,
        collections: stats.collections.map((c) => c.collection),
        created_at: new Date(tenant.created_at).toISOString(),
      },
    ];
  }
}
