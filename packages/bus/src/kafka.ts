import type { Database } from '@trove/db';
import type { Logger } from '@trove/platform';
import type { EventBus } from './port';

export interface KafkaEventBusOptions {
  database: Database;
  logger: Logger;
  brokers: string[];
  clientId: string;
}

export declare class KafkaEventBus implements EventBus {
  constructor(opts: KafkaEventBusOptions);
  readonly kind: 'kafka';
  publishInTransaction: EventBus['publishInTransaction'];
  publish: EventBus['publish'];
  subscribe: EventBus['subscribe'];
  start: EventBus['start'];
  close: EventBus['close'];
}
