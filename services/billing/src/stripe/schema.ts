import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

/** A payment-provider event billing has handled: the same id delivered again changes nothing. Also the audit trail. */
export interface PaymentEventTable {
  event_id: string;
  type: string;
  tenant_id: string | null;
  /** The subscription the event is about, when it is about one. */
  subscription_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The provider's time of the event. */
  created: Date;
  /** What handling it did: applied, stale (older than the plan's last change), ignored, logged. */
  outcome: string;
  received_at: Timestamp;
}

/**
 * One tenant's search overage decided for one meter window: written in the transaction that decides it, before the
 * provider is called, so a restart never decides (or reports) the same window twice; reported_at stays null until
 * the provider took it, and an unreported row is sent again (same identifier, the provider's dedup key).
 */
export interface MeterReportTable {
  tenant_id: string;
  /** Start of the metering window. */
  window_start: Date;
  /** The usage month (YYYY-MM) whose overage this is. */
  period: string;
  identifier: string;
  stripe_customer_id: string;
  value: ColumnType<string, number, number>;
  decided_at: Timestamp;
  reported_at: NullableTimestamp;
  attempts: ColumnType<number, number | undefined, number>;
}
