import type { Migration } from '@trove/db';

/** The auth schema: tenants and their API keys. Key values are never stored, only their HMAC. */
export const authMigrations: Migration[] = [
  {
    version: 1,
    name: 'tenants and api keys',
    up: `
      create table auth.tenants (
        id uuid primary key,
        name text,
        plan text not null check (plan in ('free', 'pro', 'scale', 'enterprise')),
        created_at timestamptz not null default now()
      );
      create table auth.api_keys (
        id uuid primary key,
        tenant_id uuid not null references auth.tenants (id),
        name text not null,
        key_hash text not null unique,
        scopes text[] not null,
        expires_at timestamptz,
        created_at timestamptz not null default now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      );
      create index api_keys_tenant_created_idx on auth.api_keys (tenant_id, created_at);
    `,
  },
  {
    version: 2,
    name: 'portal users',
    // One account per email whatever its case: the unique index is on lower(email), and sign-in looks it up so.
    up: `
      create table auth.users (
        id uuid primary key,
        tenant_id uuid not null references auth.tenants (id),
        email text not null,
        password_hash text not null,
        display_name text,
        company text,
        created_at timestamptz not null default now()
      );
      create unique index users_email_lower_idx on auth.users (lower(email));
      create index users_tenant_idx on auth.users (tenant_id);
    `,
  },
  {
    version: 3,
    name: 'portal usage and quickstart',
    // Kept by the usage.events consumer until the billing service takes usage over. usage_events_seen remembers the
    // search counts already added, so a redelivered one is not added twice.
    up: `
      create table auth.usage_counters (
        tenant_id uuid not null,
        period text not null check (period ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
        searches bigint not null default 0,
        updated_at timestamptz not null default now(),
        primary key (tenant_id, period)
      );
      create table auth.quickstart_steps (
        tenant_id uuid not null,
        step text not null check (step in ('define_schema', 'upload_data', 'first_search')),
        completed_at timestamptz not null,
        primary key (tenant_id, step)
      );
      create table auth.usage_events_seen (
        event_id uuid primary key,
        seen_at timestamptz not null default now()
      );
      create index usage_events_seen_at_idx on auth.usage_events_seen (seen_at);
    `,
  },
  {
    version: 4,
    name: 'usage counters moved to billing',
    // The billing service counts usage from usage.events now (billing.usage); auth keeps only the quickstart proofs.
    up: `
      drop table auth.usage_counters;
      drop table auth.usage_events_seen;
    `,
  },
  {
    version: 5,
    name: 'plan changes from billing',
    // Billing owns plans and announces each change; auth keeps the latest so key verification answers it.
    up: `alter table auth.tenants add column plan_changed_at timestamptz;`,
  },
];
