import type { EventBus, SubscribeOptions } from '@trove/bus';
import { renderMetrics, serviceRegistry } from '@trove/platform';
import { withConsumerLag } from './consumer-lag';

/** A bus that answers each group's lag from a table, or fails for the groups it is told to. */
function standIn(lags: Record<string, number>, failing: string[] = []) {
  const subscribed: SubscribeOptions[] = [];
  const bus = {
    kind: 'embedded',
    subscribe: async (opts: SubscribeOptions) => {
      subscribed.push(opts);
      return { stop: async () => undefined };
    },
    lag: async (group: string) => {
      if (failing.includes(group)) throw new Error('database down');
      return lags[group] ?? 0;
    },
    ping: async () => undefined,
  } as unknown as EventBus;
  return { bus, subscribed };
}

const handler = async () => undefined;

describe('withConsumerLag', () => {
  it("reports the lag of each group the service subscribed, asked of the bus when scraped, ephemeral groups left out", async () => {
    const registry = serviceRegistry('search');
    const { bus: inner, subscribed } = standIn({ 'search.indexer': 42, 'records.indexing-status': 3 });
    const bus = withConsumerLag(inner, registry);

    await bus.subscribe({ group: 'search.indexer', topics: ['records.changed'], handler });
    await bus.subscribe({ group: 'gateway.keys.1f3a', topics: ['auth.events'], handler, ephemeral: true });

    expect(subscribed.map((s) => s.group)).toEqual(['search.indexer', 'gateway.keys.1f3a']);
    const text = await renderMetrics([registry]);
    expect(text).toMatch(/^trove_event_consumer_lag\{group="search\.indexer",service="search"\} 42$/m);
    expect(text).not.toContain('gateway.keys');
    expect(text).not.toContain('records.indexing-status');
    await expect(bus.ping()).resolves.toBeUndefined();
  });

  it('leaves out a group whose lag the bus cannot answer, rather than failing the scrape', async () => {
    const registry = serviceRegistry('records');
    const bus = withConsumerLag(standIn({ ok: 1 }, ['down']).bus, registry);
    await bus.subscribe({ group: 'ok', topics: ['t'], handler });
    await bus.subscribe({ group: 'down', topics: ['t'], handler });

    const text = await renderMetrics([registry]);

    expect(text).toMatch(/^trove_event_consumer_lag\{group="ok",service="records"\} 1$/m);
    expect(text).not.toMatch(/group="down"/);
  });
});
