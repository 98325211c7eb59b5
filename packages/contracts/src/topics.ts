/** Kafka topic names (or embedded-log topics); the only place they are spelled. */
export const TOPICS = {
  recordsChanged: 'records.changed',
  recordsIndexed: 'records.indexed',
  usageEvents: 'usage.events',
  authEvents: 'auth.events',
  billingEvents: 'billing.events',
} as const;

export type Topic = (typeof TOPICS)[keyof typeof TOPICS];
