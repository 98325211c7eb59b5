/** Billing answers the tenant's counted usage of the current month here (`?tenant_id=`), for internal callers. */
export const BILLING_USAGE_PATH = '/internal/billing/usage';

/** 200 answer of BILLING_USAGE_PATH: the tenant's counts of the current period (YYYY-MM, UTC), 0 before the first. */
export interface BillingUsageAnswer {
  tenant_id: string;
  period: string;
  searches: number;
  requests: number;
}
