import type { Migration } from '@trove/db';

/** The `open` schema: how often Open searches surfaced each tenant's collections, per day, for the portal's analytics. */
export const migrations: Migration[] = [
  {
    version: 1,
    name: 'open search counts',
    up: `
      create table open.search_counts (
        day date not null,
        tenant_id text not null,
        collection text not null,
        searches bigint not null default 0,
        primary key (tenant_id, day, collection)
      );
    `,
  },
];
