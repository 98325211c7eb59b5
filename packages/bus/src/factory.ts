import { migrate, type Database } from '@trove/db';
import type { Logger } from '@trove/platform';
import { EmbeddedEventBus } from './embedded';
import { KafkaEventBus } from './kafka';
import { busMigrations } from './migrations';
import type { EventBus } from './port';

export interface CreateEventBusOptions {
  /** The database holding the outbox (and, in embedded mode, the log). */
  database: Database;
  logger: Logger;
  /** Kafka brokers; without them the embedded log is used. */
  kafkaBrokers?: string[];
  kafkaClientId?: string;
  /** How long the embedded log keeps events (Kafka topics have their own retention); unset keeps them all. */
  eventRetentionMs?: number;
}

/** Chooses the adapter once from configuration. */
export async function createEventBus(opts: CreateEventBusOptions): Promise<EventBus> {
  await migrate(opts.database, 'bus', busMigrations);
  if (opts.kafkaBrokers && opts.kafkaBrokers.length > 0) {
    return new KafkaEventBus({
      database: opts.database,
      logger: opts.logger,
      brokers: opts.kafkaBrokers,
      clientId: opts.kafkaClientId ?? 'trove',
    });
  }
  return new EmbeddedEventBus(opts.database, opts.logger, { retentionMs: opts.eventRetentionMs });
}
