import type { ColumnType, Kysely, Transaction } from 'kysely';
import type { Scope } from '@trove/platform';
import type { Plan } from '../domain/key-rules';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface TenantTable {
  id: string;
  name: string | null;
  plan: Plan;
  created_at: Timestamp;
}

export interface ApiKeyTable {
  id: string;
  tenant_id: string;
  name: string;
  key_hash: string;
  scopes: Scope[];
  expires_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_at: Timestamp;
  last_used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  revoked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** The auth service's tables, by fully qualified name. */
export interface AuthTables {
  'auth.tenants': TenantTable;
  'auth.api_keys': ApiKeyTable;
}

/** The auth service's typed handle, made once where the service is composed (module.ts, bootstrap.ts). */
export type Db = Kysely<AuthTables>;

export type AuthDb = Db | Transaction<AuthTables>;
