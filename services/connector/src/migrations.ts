import type { Migration } from '@trove/db';

/** The `connector` schema: each tenant's connectors, their encrypted credentials and the lease of a running pull. */
export const migrations: Migration[] = [
  {
    version: 1,
    name: 'connectors',
    // connection_config holds the AES-256-GCM ciphertext only (CredentialCipher). pull_owner/pull_lease_until are the
    // lease that lets one pull of a connector run at a time across every replica: taken by a conditional update,
    // renewed while the pull runs, and taken over once it has lapsed (its process died). last_pull_at is the start
    // time of the last successful pull, bound as :last_pull. schedule_slot is when a replica last claimed a scheduled
    // run, so each due run is taken by one replica only.
    up: `
      create table connector.connectors (
        id uuid primary key,
        tenant_id uuid not null,
        name text not null,
        connector_type text not null check (connector_type in ('postgresql', 'mysql', 'mongodb', 'neo4j')),
        collection text not null,
        record_type text not null,
        connection_config text not null,
        query text not null,
        name_column text,
        schedule text,
        batch_size integer not null check (batch_size between 1 and 50000),
        plan text,
        created_at timestamptz(3) not null default now(),
        last_pull_at timestamptz(3),
        last_pull_status text,
        last_pull_finished_at timestamptz(3),
        pull_owner uuid,
        pull_lease_until timestamptz(3),
        schedule_slot timestamptz(3)
      );
      create index connectors_tenant on connector.connectors (tenant_id, created_at);
      create index connectors_scheduled on connector.connectors (id) where schedule is not null;
    `,
  },
  {
    version: 2,
    name: 'tenant plans',
    // Each tenant's plan as billing last announced it on billing.events (changed_at orders redelivered or
    // out-of-order events), so a scheduled pull, which no request carries, acts on the plan the tenant has now.
    up: `
      create table connector.tenant_plans (
        tenant_id uuid primary key,
        plan text not null,
        changed_at timestamptz not null
      );
    `,
  },
];
