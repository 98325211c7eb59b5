import { randomUUID } from 'node:crypto';
import type { Cache } from './port';

/**
 * One contract, both adapters: the in-process cache and Redis. Every test writes under keys of its own, so runs
 * sharing one Redis keep apart. Durations are short so the suite is quick; the waits leave room for a slow machine.
 */

export interface CacheHarness {
  cache: Cache;
  /** Closes the cache (it may already be closed) and removes whatever the tests stored. */
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function cacheContract(name: string, open: () => Promise<CacheHarness>, describeFn: jest.Describe = describe): void {
  describeFn(`cache contract: ${name}`, () => {
    let harness: CacheHarness;
    let cache: Cache;
    let key: (label: string) => string;

    beforeAll(async () => {
      harness = await open();
      cache = harness.cache;
    });
    afterAll(async () => {
      await harness?.close();
    });
    beforeEach(() => {
      const test = randomUUID();
      key = (label) => `contract:${test}:${label}`;
    });

    it('answers a value it was given', async () => {
      await cache.set(key('a'), 'first', 10_000);
      await cache.set(key('b'), 'second', 10_000);

      expect(await cache.get(key('a'))).toBe('first');
      expect(await cache.get(key('b'))).toBe('second');
    });

    it('answers the latest value set for a key', async () => {
      await cache.set(key('a'), 'old', 10_000);
      await cache.set(key('a'), 'new', 10_000);

      expect(await cache.get(key('a'))).toBe('new');
    });

    it('answers undefined for a key never set', async () => {
      expect(await cache.get(key('absent'))).toBeUndefined();
    });

    it('stops answering a value once its ttl has passed', async () => {
      // A second: on a loaded machine the read right after the write has taken longer than a shorter ttl.
      await cache.set(key('short'), 'soon gone', 1_000);
      await cache.set(key('long'), 'still here', 10_000);
      expect(await cache.get(key('short'))).toBe('soon gone');

      await sleep(1_200);

      expect(await cache.get(key('short'))).toBeUndefined();
      expect(await cache.get(key('long'))).toBe('still here');
    });

    it('gives a new ttl to a value set again', async () => {
      await cache.set(key('a'), 'v1', 80);
      await cache.set(key('a'), 'v2', 10_000);

      await sleep(150);

      expect(await cache.get(key('a'))).toBe('v2');
    });

    it('refuses a ttl or window that is not a positive duration', async () => {
      await expect(cache.set(key('a'), 'v', 0)).rejects.toThrow(RangeError);
      await expect(cache.set(key('a'), 'v', -5)).rejects.toThrow(RangeError);
      await expect(cache.set(key('a'), 'v', Number.NaN)).rejects.toThrow(RangeError);
      await expect(cache.hit(key('c'), 0)).rejects.toThrow(RangeError);
      expect(await cache.get(key('a'))).toBeUndefined();
    });

    it('starts a namespace at version 0 and raises it by one on each bump, per namespace', async () => {
      expect(await cache.version(key('ns1'))).toBe(0);

      expect(await cache.bump(key('ns1'))).toBe(1);
      expect(await cache.bump(key('ns1'))).toBe(2);

      expect(await cache.version(key('ns1'))).toBe(2);
      expect(await cache.version(key('ns2'))).toBe(0);
      expect(await cache.bump(key('ns2'))).toBe(1);
      expect(await cache.version(key('ns1'))).toBe(2);
    });

    it('gives concurrent bumps distinct versions', async () => {
      const versions = await Promise.all(Array.from({ length: 10 }, () => cache.bump(key('ns'))));

      expect([...versions].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(await cache.version(key('ns'))).toBe(10);
    });

    it('counts hits within a window and answers one resetAt for the whole window', async () => {
      const before = Date.now();
      const first = await cache.hit(key('client'), 10_000);
      const second = await cache.hit(key('client'), 10_000);
      const third = await cache.hit(key('client'), 10_000);

      expect([first.count, second.count, third.count]).toEqual([1, 2, 3]);
      expect(first.resetAt).toBeGreaterThan(Date.now());
      expect(first.resetAt).toBeGreaterThanOrEqual(before + 10_000);
      expect(first.resetAt).toBeLessThanOrEqual(Date.now() + 10_000);
      expect(second.resetAt).toBe(first.resetAt);
      expect(third.resetAt).toBe(first.resetAt);
    });

    it('counts each key in its own window', async () => {
      await cache.hit(key('one'), 10_000);
      await cache.hit(key('one'), 10_000);

      expect((await cache.hit(key('two'), 10_000)).count).toBe(1);
      expect((await cache.hit(key('one'), 10_000)).count).toBe(3);
    });

    it('starts a new window with a hit after the window ended', async () => {
      const first = await cache.hit(key('client'), 100);
      await cache.hit(key('client'), 100);

      await sleep(Math.max(0, first.resetAt - Date.now()) + 60);
      const next = await cache.hit(key('client'), 100);

      expect(next.count).toBe(1);
      expect(next.resetAt).toBeGreaterThan(first.resetAt);
      expect(next.resetAt).toBeGreaterThan(Date.now());
    });

    it('counts every one of many concurrent hits exactly once', async () => {
      const results = await Promise.all(Array.from({ length: 25 }, () => cache.hit(key('burst'), 10_000)));

      expect(results.map((r) => r.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
      expect(new Set(results.map((r) => r.resetAt)).size).toBe(1);
    });

    it('counts one hit in each of several windows at once, each as hit would', async () => {
      await cache.hit(key('minute'), 10_000);

      const [minute, search] = await cache.hitAll([
        { key: key('minute'), windowMs: 10_000 },
        { key: key('search'), windowMs: 20_000 },
      ]);
      const [again] = await cache.hitAll([{ key: key('minute'), windowMs: 10_000 }]);

      expect(minute!.count).toBe(2);
      expect(search!.count).toBe(1);
      expect(search!.resetAt).toBeGreaterThanOrEqual(minute!.resetAt + 9_000);
      expect(again).toEqual({ count: 3, resetAt: minute!.resetAt });
      expect(await cache.hitAll([])).toEqual([]);
    });

    it('starts a new window from its initial count and ignores initial while the window runs', async () => {
      const [first] = await cache.hitAll([{ key: key('month'), windowMs: 10_000, initial: 47 }]);
      const [second] = await cache.hitAll([{ key: key('month'), windowMs: 10_000, initial: 5 }]);
      const [other] = await cache.hitAll([{ key: key('other'), windowMs: 10_000, initial: 0 }]);

      expect(first!.count).toBe(48);
      expect(second).toEqual({ count: 49, resetAt: first!.resetAt });
      expect(other!.count).toBe(1);
      expect((await cache.hit(key('month'), 10_000)).count).toBe(50);
    });

    it('counts every one of many concurrent hitAll calls exactly once in every window', async () => {
      const hits = [
        { key: key('a'), windowMs: 10_000, initial: 10 },
        { key: key('b'), windowMs: 20_000 },
      ];
      const results = await Promise.all(Array.from({ length: 20 }, () => cache.hitAll(hits)));

      expect(results.map((r) => r[0]!.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 11));
      expect(results.map((r) => r[1]!.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    });

    it('refuses a bad hit in hitAll and counts none of the others', async () => {
      await expect(cache.hitAll([{ key: key('a'), windowMs: 10_000 }, { key: key('b'), windowMs: 0 }])).rejects.toThrow(RangeError);
      await expect(cache.hitAll([{ key: key('a'), windowMs: 10_000, initial: -1 }])).rejects.toThrow(RangeError);
      await expect(cache.hitAll([{ key: key('a'), windowMs: 10_000, initial: 1.5 }])).rejects.toThrow(RangeError);

      expect((await cache.hit(key('a'), 10_000)).count).toBe(1);
    });

    it('keeps values, versions and counters of the same name apart', async () => {
      const shared = key('shared');
      await cache.set(shared, 'value', 10_000);
      await cache.bump(shared);
      await cache.hit(shared, 10_000);

      expect(await cache.get(shared)).toBe('value');
      expect(await cache.version(shared)).toBe(1);
      expect((await cache.hit(shared, 10_000)).count).toBe(2);
    });

    it('round-trips unicode, empty, JSON and large values unchanged', async () => {
      const values: Record<string, string> = {
        unicode: 'Schraube – Größe ✓ 螺丝 🔩 \u{1F600}',
        empty: '',
        json: JSON.stringify({ hits: [{ name: 'DIN 933 M8×40', score: 0.98 }], total_estimate: 1 }),
        large: 'x'.repeat(200_000),
      };
      for (const [label, value] of Object.entries(values)) await cache.set(key(label), value, 10_000);

      for (const [label, value] of Object.entries(values)) expect(await cache.get(key(label))).toBe(value);
    });

    it('answers a ping while open', async () => {
      await expect(cache.ping()).resolves.toBeUndefined();
    });

    it('closes, after which calls reject and closing again is harmless', async () => {
      const own = await open();
      await own.cache.set(key('a'), 'v', 10_000);

      await own.cache.close();

      await expect(own.cache.ping()).rejects.toThrow();
      await expect(own.cache.get(key('a'))).rejects.toThrow();
      await expect(own.cache.close()).resolves.toBeUndefined();
      await own.close();
    });
  });
}
