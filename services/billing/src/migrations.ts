import type { Migration } from '@trove/db';
import { paymentMigrations } from './stripe/migrations';

/**
 * The `billing` schema: each tenant's plan (and its payment-provider ids) and its usage per month. Versions 1-9 are
 * plans and usage (2: searches per day); 10 onwards belong to the payment provider's tables.
 */
export const migrations: Migration[] = [
  {
    version: 1,
    name: 'tenant plans and usage',
    // A tenant without a plan row is on the deployment mode's default plan. usage_events_seen remembers the counted
    // usage.events facts, so a redelivered one is not added twice.
    up: `
      create table billing.tenant_plans (
        tenant_id uuid primary key,
        plan text not null check (plan in ('free', 'pro', 'scale', 'enterprise')),
        stripe_customer_id text,
        stripe_subscription_id text,
        billing_period_end timestamptz,
        plan_changed_at timestamptz not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create unique index tenant_plans_customer_idx on billing.tenant_plans (stripe_customer_id) where stripe_customer_id is not null;
      create table billing.usage (
        tenant_id uuid not null,
        period text not null check (period ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
        requests bigint not null default 0,
        searches bigint not null default 0,
        updated_at timestamptz not null default now(),
        primary key (tenant_id, period)
      );
      create table billing.usage_events_seen (
        event_id uuid primary key,
        seen_at timestamptz not null default now()
      );
      create index usage_events_seen_at_idx on billing.usage_events_seen (seen_at);
    `,
  },
  {
    version: 2,
    name: 'searches per day',
    // The portal's chart of searches per day (docs/behaviour/portal-usage.md). Counted in the same transaction as
    // billing.usage from the same first-seen facts, so a redelivered fact adds to neither.
    up: `
      create table billing.usage_days (
        tenant_id uuid not null,
        day date not null,
        searches bigint not null default 0,
        updated_at timestamptz not null default now(),
        primary key (tenant_id, day)
      );
    `,
  },
  ...paymentMigrations,
];
