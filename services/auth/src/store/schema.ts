import type { ColumnType, Kysely, Transaction } from 'kysely';
import type { Scope } from '@trove/platform';
import type { Plan } from '@trove/contracts';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface TenantTable {
  id: string;
  name: string | null;
  plan: Plan;
  /** When billing changed the plan last (billing.events); null while it is the plan the tenant was created on. */
  plan_changed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
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

/** A person who signs in to the portal; one tenant's first user is made at signup. */
export interface UserTable {
  id: string;
  tenant_id: string;
  /** As entered; unique regardless of case. */
  email: string;
  /** `scrypt$N$r$p$<salt>$<hash>` (domain/passwords.ts). */
  password_hash: string;
  display_name: string | null;
  company: string | null;
  created_at: Timestamp;
}

/** When a tenant first did a quickstart step that a usage.events fact proves (create_api_key is read from its keys). */
export interface QuickstartStepTable {
  tenant_id: string;
  step: 'define_schema' | 'upload_data' | 'first_search';
  completed_at: ColumnType<Date, Date | string, never>;
}

/** The auth service's tables, by fully qualified name. */
export interface AuthTables {
  'auth.tenants': TenantTable;
  'auth.api_keys': ApiKeyTable;
  'auth.users': UserTable;
  'auth.quickstart_steps': QuickstartStepTable;
}

/** The auth service's typed handle, made once where the service is composed (module.ts, bootstrap.ts). */
export type Db = Kysely<AuthTables>;

export type AuthDb = Db | Transaction<AuthTables>;
