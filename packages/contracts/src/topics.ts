/** Kafka topic names (or embedded-log topics); the only place they are spelled. */
export const TOPICS = {
  recordsChanged: 'records.changed',
  recordsIndexed: 'records.indexed',
  usageEvents: 'usage.events',
  authEvents: 'auth.events',
  billingEvents: 'billing.events',
} as const;

export type Topic = (typeof TOPICS)[keyof typeof TOPICS];

/**
 * The consumer group of search's indexer on records.changed: records reads its lag for the admin queue depth (the
 * changes every tenant's writes wait behind before search indexes them).
 */
export const SEARCH_INDEXER_GROUP = 'search.indexer';
