import type { ColumnType, Kysely } from 'kysely';
import type { ConnectorType } from '@trove/contracts';

export type { ConnectorType } from '@trove/contracts';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface ConnectorsTable {
  id: string;
  tenant_id: string;
  name: string;
  connector_type: ConnectorType;
  collection: string;
  record_type: string;
  /** Ciphertext of the connection settings (CredentialCipher); never the settings themselves. */
  connection_config: string;
  query: string;
  name_column: string | null;
  schedule: string | null;
  batch_size: number;
  /** The plan of the tenant as the last request about this connector carried it, for scheduled pulls. */
  plan: string | null;
  created_at: Timestamp;
  last_pull_at: NullableTimestamp;
  last_pull_status: 'completed' | 'failed' | null;
  last_pull_finished_at: NullableTimestamp;
  pull_owner: string | null;
  pull_lease_until: NullableTimestamp;
  /** When a replica last claimed a scheduled run of this connector. */
  schedule_slot: NullableTimestamp;
}

/** Each tenant's plan as billing last announced it (billing.events). */
export interface TenantPlansTable {
  tenant_id: string;
  plan: string;
  changed_at: Timestamp;
}

/** The tables of the `connector` schema, as kysely sees them. */
export interface ConnectorSchema {
  'connector.connectors': ConnectorsTable;
  'connector.tenant_plans': TenantPlansTable;
}

export type Db = Kysely<ConnectorSchema>;
export type ConnectorRow = Omit<ConnectorsTable, 'created_at' | 'last_pull_at' | 'last_pull_finished_at' | 'pull_lease_until' | 'schedule_slot'> & {
  created_at: Date;
  last_pull_at: Date | null;
  last_pull_finished_at: Date | null;
  pull_lease_until: Date | null;
  schedule_slot: Date | null;
};
