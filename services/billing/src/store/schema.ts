import type { ColumnType, Kysely, Transaction } from 'kysely';
import type { Plan } from '@trove/contracts';
import type { MeterReportTable, PaymentEventTable } from '../stripe/schema';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

/** A tenant's plan as billing last set it; a tenant without a row is on the deployment mode's default. */
export interface TenantPlanTable {
  tenant_id: string;
  plan: Plan;
  stripe_customer_id: string | null;
  stripe_subscription_id: string | null;
  /** End of the paid period the payment provider last reported. */
  billing_period_end: NullableTimestamp;
  /** When the change that set this row happened (the provider's time for its events): orders changes. */
  plan_changed_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A tenant's counted usage of one month (YYYY-MM, UTC): the source of truth for GET /usage and billing. */
export interface UsageTable {
  tenant_id: string;
  period: string;
  requests: ColumnType<string, number | undefined, number>;
  searches: ColumnType<string, number | undefined, number>;
  updated_at: Timestamp;
}

/** A tenant's counted searches of one day (UTC), for the portal's chart; billing.usage stays the billed count. */
export interface UsageDayTable {
  tenant_id: string;
  /** A date column, written as YYYY-MM-DD and read back with to_char (store/usage.ts): pg would read a Date. */
  day: ColumnType<string, string, string>;
  searches: ColumnType<string, number | undefined, number>;
  updated_at: Timestamp;
}

export interface UsageEventSeenTable {
  event_id: string;
  seen_at: Timestamp;
}

/** The tables of the `billing` schema, as kysely sees them. */
export interface BillingSchema {
  'billing.tenant_plans': TenantPlanTable;
  'billing.usage': UsageTable;
  'billing.usage_days': UsageDayTable;
  'billing.usage_events_seen': UsageEventSeenTable;
  'billing.payment_events': PaymentEventTable;
  'billing.meter_reports': MeterReportTable;
}

export type Db = Kysely<BillingSchema>;
export type Trx = Transaction<BillingSchema>;
