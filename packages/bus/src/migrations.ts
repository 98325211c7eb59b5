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
  {
    version: 2,
    name: 'events by topic',
    // Each group reads one topic's events in log order; without the topic in the index, a group whose topic is quiet
    // (the gateway's auth events) walked every other topic's events on every poll, and every read stepped over the
    // rows of the topics it does not take.
    up: `create index events_topic_txid_position on bus.events (topic, txid, position);`,
  },
  {
    version: 3,
    name: 'payloads as json',
    // The bus never looks inside a payload: it stores the text it is given and hands it back. As jsonb, every read
    // rebuilt the text from the binary form (and a record's payload was stored compressed), which made reading the
    // log cost about four times writing it.
    up: `
      alter table bus.events alter column payload type json using payload::json;
      alter table bus.outbox alter column payload type json using payload::json;
    `,
  },
  {
    version: 4,
    name: 'lease holder identity',
    // Who holds a group's lease (embedded.ts, member.ts): a restarted process on the same host sees that the holder
    // is gone and takes the group at once instead of waiting for the lease to run out.
    up: `
      alter table bus.consumer_offsets
        add column lease_host text,
        add column lease_pid_namespace text,
        add column lease_pid integer,
        add column lease_incarnation text;
    `,
  },
];
