import { randomBytes } from 'node:crypto';
import type { EventBus } from '@trove/bus';

/** Waits until `check` passes, for effects that happen after an answer (consumers, timer flushes). */
export async function eventually(check: () => Promise<void>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Every event of a topic published from now on, parsed; `stop()` ends the collection. */
export interface CollectedEvents<T> {
  events: T[];
  stop(): Promise<void>;
}

/** Collects a topic's events in a consumer group of its own, as a test observing what a service announces. */
export async function collectEvents<T>(bus: EventBus, topic: string, parse: (payload: unknown) => T): Promise<CollectedEvents<T>> {
  const events: T[] = [];
  const subscription = await bus.subscribe({
    group: `test.collect.${randomBytes(6).toString('hex')}`,
    topics: [topic],
    handler: async (batch) => {
      for (const e of batch) events.push(parse(e.payload));
    },
  });
  return { events, stop: () => subscription.stop() };
}
