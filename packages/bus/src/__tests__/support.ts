import { randomUUID } from 'node:crypto';
import type { DeliveredEvent, OutgoingEvent } from '../port';

/** Polls until the check passes; fails with the check's last error (or the description) after the timeout. */
export async function waitUntil(
  description: string,
  check: () => boolean | void | Promise<boolean | void>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if ((await check()) !== false) return;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      if (lastError instanceof Error) throw lastError;
      throw new Error(`Timed out after ${timeoutMs} ms waiting until ${description}`);
    }
    await sleep(20);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A topic name no other test uses, so a shared Kafka cluster or database keeps tests apart. */
export function uniqueTopic(label: string): string {
  return `contract.${label}.${randomUUID().slice(0, 8)}`;
}

export interface TestPayload {
  id: string;
  seq: number;
}

/** Events numbered 0..count-1 whose keys cycle through `keys`. */
export function makeEvents(topic: string, count: number, opts: { keys?: string[]; label?: string } = {}): OutgoingEvent[] {
  const keys = opts.keys ?? ['k'];
  const label = opts.label ?? 'e';
  return Array.from({ length: count }, (_, seq) => ({
    topic,
    key: keys[seq % keys.length]!,
    payload: { id: `${label}-${seq}`, seq } satisfies TestPayload,
  }));
}

export function idOf(event: DeliveredEvent | OutgoingEvent): string {
  return (event.payload as TestPayload).id;
}

/** Collects what a subscription was handed; `handled` holds only the events of batches whose handler resolved. */
export class Recorder {
  readonly handled: DeliveredEvent[] = [];
  readonly deliveries: DeliveredEvent[][] = [];

  constructor(private readonly beforeResolve?: (batch: DeliveredEvent[]) => void | Promise<void>) {}

  readonly handler = async (batch: DeliveredEvent[]): Promise<void> => {
    this.deliveries.push(batch);
    await this.beforeResolve?.(batch);
    this.handled.push(...batch);
  };

  ids(): string[] {
    return this.handled.map(idOf);
  }

  has(ids: string[]): boolean {
    const seen = new Set(this.ids());
    return ids.every((id) => seen.has(id));
  }
}
