import { RECORDS_COLLECTION_STATS, planOf, usagePeriodOf, type BillingUsageAnswer, type Plan } from '@trove/contracts';
import type { Identity, ServiceClient } from '@trove/platform';
import { daysSoFar } from './domain/usage-days';
import { usageReport, type UsageReport } from './domain/usage-report';
import type { Db } from './store/schema';
import { tenantPlanOf } from './store/plans';
import { searchesByDay, usageOf } from './store/usage';

/** GET /usage: this month's counts of the key's tenant. */
export interface KeyUsageAnswer {
  tenant_id: string;
  usage: { requests: number; searches: number; records: number };
}

/**
 * Usage of the current month, from billing's own tables (plan, and the counts the usage.events consumer keeps) and,
 * for the records in use, from records: records is the system of record and counts the tenant's active records
 * exactly at the moment of asking, where a count kept from events would drift with archives, replaces and deletions.
 */
export class UsageService {
  constructor(private readonly deps: { db: Db; records: ServiceClient; defaultPlan: Plan }) {}

  async keyUsage(tenantId: string, requestId?: string, now = new Date()): Promise<KeyUsageAnswer> {
    const [counts, records] = await Promise.all([usageOf(this.deps.db, tenantId, usagePeriodOf(now)), this.activeRecords(tenantId, requestId)]);
    return { tenant_id: tenantId, usage: { requests: counts.requests, searches: counts.searches, records } };
  }

  async portalUsage(tenantId: string, requestId?: string, now = new Date()): Promise<UsageReport> {
    const period = usagePeriodOf(now);
    const [plan, counts, byDay, records] = await Promise.all([
      this.planOf(tenantId),
      usageOf(this.deps.db, tenantId, period),
      searchesByDay(this.deps.db, tenantId, period),
      this.activeRecords(tenantId, requestId),
    ]);
    return usageReport({ tenantId, plan, period, records, searches: counts.searches, searchesByDay: daysSoFar(now, byDay) });
  }

  async counted(tenantId: string, now = new Date()): Promise<BillingUsageAnswer> {
    const period = usagePeriodOf(now);
    return { tenant_id: tenantId, period, ...(await usageOf(this.deps.db, tenantId, period)) };
  }

  /** The tenant's plan as billing set it, or the deployment mode's default for a tenant it never set one for. */
  async planOf(tenantId: string): Promise<Plan> {
    const row = await tenantPlanOf(this.deps.db, tenantId);
    return row ? planOf(row.plan) : this.deps.defaultPlan;
  }

  private async activeRecords(tenantId: string, requestId?: string): Promise<number> {
    const identity: Identity = { tenantId, principal: 'service:billing', scopes: ['records'] };
    return (await this.deps.records.call(RECORDS_COLLECTION_STATS, { identity, requestId })).total_records;
  }
}
