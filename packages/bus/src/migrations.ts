import type { Migration } from '@trove/db';

/** The `bus` schema: the embedded log (which is also the outbox in embedded mode) and the Kafka-mode outbox. */
export const busMigrations: Migration[] = [
  {
    version: 1,
    name: 'event log, consumer offsets and outbox',
    up: `
      create table bus.events (
        position bigserial primary key,
        txid xid8 not null default pg_current_xact_id(),
        topic text not null,
        key text not null,
        payload jsonb not null,
        published_at timestamptz not null default now()
      );
      create index events_txid_position on bus.events (txid, position);
      create table bus.consumer_offsets (
        grp text primary key,
        txid xid8 not null default '0',
        position bigint not null default 0,
        lease_owner text,
        lease_until timestamptz,
        updated_at timestamptz not null default now()
      );
      create table bus.outbox (
        id bigserial primary key,
        topic text not null,
        key text not null,
        payload jsonb not null,
        created_at timestamptz not null default now()
      );
    `,
  },
];
