import { FailOpenCounts } from './fail-open';
import { MemoryCache } from './memory';
import type { Hit, HitCount } from './port';

/** A counter store that can be taken away and brought back, counting with a real in-memory cache meanwhile. */
class Flaky {
  up = true;
  private readonly memory = new MemoryCache();

  hitAll(hits: readonly Hit[]): Promise<HitCount[]> {
    return this.up ? this.memory.hitAll(hits) : Promise.reject(new Error('connection refused'));
  }
}

describe('FailOpenCounts', () => {
  it('answers nothing while the store is away, and says so once per outage', async () => {
    const store = new Flaky();
    const lines: string[] = [];
    const logger = { info: (msg: string) => void lines.push(`info ${msg}`), warn: (_: object, msg: string) => void lines.push(`warn ${msg}`) };
    const counts = new FailOpenCounts(store, logger as never, 'test counters', 'requests pass');
    const hit = [{ key: 'k', windowMs: 60_000 }];

    expect((await counts.hitAll(hit))?.[0]?.count).toBe(1);
    store.up = false;
    expect(await counts.hitAll(hit)).toBeUndefined();
    expect(await counts.hitAll(hit)).toBeUndefined();
    store.up = true;
    expect((await counts.hitAll(hit))?.[0]?.count).toBe(2);
    expect(await counts.hitAll(hit)).toBeDefined();

    expect(lines).toEqual(['warn test counters unavailable; requests pass until they are back', 'info test counters are reachable again']);
  });
});
