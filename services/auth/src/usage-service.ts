import { RECORDS_COLLECTION_STATS_PATH, planOf, usagePeriodOf, type CollectionStatsAnswer, type Plan } from '@trove/contracts';
import { ERRORS, type Identity, type ServiceClient } from '@trove/platform';
import { quickstartOf, type QuickstartAnswer } from './domain/quickstart';
import { usageReport, type UsageReport } from './domain/usage-report';
import type { Db } from './store/schema';
import { completedSteps, planOfTenant, searchesOf } from './store/usage';

/**
 * The portal's usage and quickstart, from auth's own tables (keys, plan, the counters the usage.events consumer
 * keeps) and, for the records in use, from records: records is the system of record and counts the tenant's active
 * records exactly at the moment of asking, where a count kept from events would drift with archives, replaces and
 * deletions.
 */
export class UsageService {
  constructor(private readonly deps: { db: Db; records: ServiceClient }) {}

  async quickstart(tenantId: string): Promise<QuickstartAnswer> {
    return quickstartOf(await completedSteps(this.deps.db, tenantId));
  }

  async usage(identity: Identity, requestId?: string, now = new Date()): Promise<UsageReport> {
    const tenantId = identity.tenantId;
    const period = usagePeriodOf(now);
    const [plan, searches, records] = await Promise.all([
      this.planOf(tenantId, identity.plan),
      searchesOf(this.deps.db, tenantId, period),
      this.activeRecords(tenantId, requestId),
    ]);
    return usageReport({ tenantId, plan, period, records, searches });
  }

  /** The tenant's plan as auth stores it; the identity's for a tenant auth has no row of. */
  private async planOf(tenantId: string, fallback: string | undefined): Promise<Plan> {
    return (await planOfTenant(this.deps.db, tenantId)) ?? planOf(fallback);
  }

  private async activeRecords(tenantId: string, requestId?: string): Promise<number> {
    const identity: Identity = { tenantId, principal: 'service:auth', scopes: ['records'] };
    const res = await this.deps.records.request<CollectionStatsAnswer>({ method: 'GET', path: RECORDS_COLLECTION_STATS_PATH, identity, requestId });
    if (res.status !== 200) throw ERRORS.unavailable('The records service is unavailable; try again shortly');
    return res.body.total_records;
  }
}
