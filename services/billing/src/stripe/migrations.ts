import type { Migration } from '@trove/db';

/** The payment provider's tables in the billing schema (versions 10 onwards; see ../migrations.ts). */
export const paymentMigrations: Migration[] = [
  {
    version: 10,
    name: 'payment provider events and meter reports',
    up: `
      create table billing.payment_events (
        event_id text primary key,
        type text not null,
        tenant_id uuid,
        created timestamptz not null,
        outcome text not null,
        received_at timestamptz not null default now()
      );
      create index payment_events_tenant_idx on billing.payment_events (tenant_id, created);
      create table billing.meter_reports (
        tenant_id uuid not null,
        window_start timestamptz not null,
        period text not null,
        identifier text not null unique,
        stripe_customer_id text not null,
        value bigint not null check (value > 0),
        decided_at timestamptz not null default now(),
        reported_at timestamptz,
        attempts integer not null default 0,
        primary key (tenant_id, period, window_start)
      );
      create index meter_reports_unreported_idx on billing.meter_reports (decided_at) where reported_at is null;
      create index meter_reports_period_idx on billing.meter_reports (tenant_id, period);
    `,
  },
  {
    version: 11,
    name: 'payment events name their subscription',
    // A subscription the provider deleted never comes back: its later (or same-second) events must not revive it.
    up: `
      alter table billing.payment_events add column subscription_id text;
      create index payment_events_ended_idx on billing.payment_events (subscription_id) where type = 'customer.subscription.deleted';
    `,
  },
];
