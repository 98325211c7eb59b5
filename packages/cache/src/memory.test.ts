import { DEFAULT_MAX_ENTRIES, MemoryCache } from './memory';

/** A clock the test moves by hand, so expiry and windows are exact and nothing sleeps. */
function manualClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

describe('MemoryCache', () => {
  it('keeps at most maxEntries values, dropping the least recently used first', async () => {
    const cache = new MemoryCache({ maxEntries: 3 });
    await cache.set('a', '1', 60_000);
    await cache.set('b', '2', 60_000);
    await cache.set('c', '3', 60_000);
    await cache.get('a');

    await cache.set('d', '4', 60_000);

    expect(cache.size).toBe(3);
    expect(await cache.get('b')).toBeUndefined();
    expect(await cache.get('a')).toBe('1');
    expect(await cache.get('c')).toBe('3');
    expect(await cache.get('d')).toBe('4');
  });

  it('counts setting a held key again as a use, not as another entry', async () => {
    const cache = new MemoryCache({ maxEntries: 2 });
    await cache.set('a', '1', 60_000);
    await cache.set('b', '2', 60_000);
    await cache.set('a', '1 again', 60_000);

    await cache.set('c', '3', 60_000);

    expect(await cache.get('a')).toBe('1 again');
    expect(await cache.get('b')).toBeUndefined();
    expect(await cache.get('c')).toBe('3');
  });

  it('holds 10,000 values by default', async () => {
    const cache = new MemoryCache();
    for (let i = 0; i <= DEFAULT_MAX_ENTRIES; i++) await cache.set(`k${i}`, 'v', 60_000);

    expect(DEFAULT_MAX_ENTRIES).toBe(10_000);
    expect(cache.size).toBe(DEFAULT_MAX_ENTRIES);
    expect(await cache.get('k0')).toBeUndefined();
    expect(await cache.get(`k${DEFAULT_MAX_ENTRIES}`)).toBe('v');
  });

  it('answers a value until the millisecond its ttl ends, then forgets it', async () => {
    const clock = manualClock();
    const cache = new MemoryCache({ now: clock.now });
    await cache.set('a', 'v', 100);

    clock.advance(99);
    expect(await cache.get('a')).toBe('v');
    clock.advance(1);
    expect(await cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('rounds a fractional ttl up to a whole millisecond, as Redis needs', async () => {
    const clock = manualClock();
    const cache = new MemoryCache({ now: clock.now });
    await cache.set('a', 'v', 0.5);

    expect(await cache.get('a')).toBe('v');
    clock.advance(1);
    expect(await cache.get('a')).toBeUndefined();
  });

  it('ends a window exactly windowMs after its first hit', async () => {
    const clock = manualClock();
    const cache = new MemoryCache({ now: clock.now });
    const first = await cache.hit('client', 1_000);
    clock.advance(999);
    const last = await cache.hit('client', 1_000);
    clock.advance(1);
    const next = await cache.hit('client', 1_000);

    expect(first).toEqual({ count: 1, resetAt: 1_001_000 });
    expect(last).toEqual({ count: 2, resetAt: 1_001_000 });
    expect(next).toEqual({ count: 1, resetAt: 1_002_000 });
  });

  it('keeps at most maxEntries counters, dropping the oldest window first', async () => {
    const clock = manualClock();
    const cache = new MemoryCache({ maxEntries: 2, now: clock.now });
    await cache.hit('a', 60_000);
    await cache.hit('a', 60_000);
    clock.advance(1);
    await cache.hit('b', 60_000);
    clock.advance(1);

    await cache.hit('c', 60_000);

    expect((await cache.hit('b', 60_000)).count).toBe(2);
    expect((await cache.hit('c', 60_000)).count).toBe(2);
    expect((await cache.hit('a', 60_000)).count).toBe(1);
  });

  it('keeps a month-long counter while many minute windows come and go, counting each length on its own', async () => {
    const clock = manualClock();
    const cache = new MemoryCache({ maxEntries: 2, now: clock.now });
    await cache.hitAll([{ key: 'month', windowMs: 32 * 86_400_000, initial: 10 }]);
    for (let i = 0; i < 5; i++) {
      clock.advance(61_000);
      await cache.hit(`minute-${i}`, 60_000);
    }

    expect((await cache.hitAll([{ key: 'month', windowMs: 32 * 86_400_000 }]))[0]!.count).toBe(12);
    expect((await cache.hit('minute-4', 60_000)).count).toBe(2);
    expect((await cache.hit('minute-0', 60_000)).count).toBe(1);
  });

  it('never forgets a version, however many values and counters come and go', async () => {
    const cache = new MemoryCache({ maxEntries: 1 });
    await cache.bump('tenant-1:parts');
    for (let i = 0; i < 10; i++) {
      await cache.set(`k${i}`, 'v', 60_000);
      await cache.hit(`c${i}`, 60_000);
    }

    expect(await cache.version('tenant-1:parts')).toBe(1);
  });

  it('refuses a maxEntries that is not a positive whole number', () => {
    expect(() => new MemoryCache({ maxEntries: 0 })).toThrow(RangeError);
    expect(() => new MemoryCache({ maxEntries: 2.5 })).toThrow(RangeError);
  });
});
