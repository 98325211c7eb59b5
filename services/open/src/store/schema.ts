import type { ColumnType, Kysely } from 'kysely';

export interface SearchCountsTable {
  /** UTC day, YYYY-MM-DD. */
  day: ColumnType<string, string, string>;
  tenant_id: string;
  collection: string;
  searches: ColumnType<string, number, number>;
}

/** The tables of the `open` schema, as kysely sees them. */
export interface OpenSchema {
  'open.search_counts': SearchCountsTable;
}

export type Db = Kysely<OpenSchema>;
