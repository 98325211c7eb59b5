import { MemoryCache, type Cache } from '@trove/cache';
import { createLogger } from '@trove/platform';
import { cacheNamespace, ResponseCache } from './response-cache';

const logger = createLogger({ level: 'silent' });
const scope = { kind: 'private' as const, tenant_id: 't1', collection: 'parts' };

/** A compute step that counts its calls and answers `{ n }` with the call's number. */
function counter(store = true) {
  let calls = 0;
  const compute = async () => ({ value: { n: ++calls }, store });
  return { compute, calls: () => calls };
}

describe('ResponseCache', () => {
  it('answers an identical request with the stored JSON text and the note kept for it, until the scope changes', async () => {
    const cache = new MemoryCache();
    const responses = new ResponseCache<string>({ cache, ttlMs: 60_000, logger });
    const { compute, calls } = counter();

    expect(await responses.answer(scope, { q: 'washer' }, compute, (v) => `note ${v.n}`)).toEqual({ hit: false, value: { n: 1 }, text: '{"n":1}' });
    expect(await responses.answer(scope, { q: 'washer' }, compute)).toEqual({ hit: true, text: '{"n":1}', note: 'note 1' });
    expect(calls()).toBe(1);

    expect(await responses.answer(scope, { q: 'bolt' }, compute)).toEqual({ hit: false, value: { n: 2 }, text: '{"n":2}' });
    await cache.bump(cacheNamespace(scope));
    expect(await responses.answer(scope, { q: 'washer' }, compute)).toEqual({ hit: false, value: { n: 3 }, text: '{"n":3}' });
  });

  it('keeps scopes apart', async () => {
    const responses = new ResponseCache({ cache: new MemoryCache(), ttlMs: 60_000, logger });
    const { compute } = counter();
    await responses.answer(scope, { q: 'washer' }, compute);
    const other = await responses.answer({ ...scope, tenant_id: 't2' }, { q: 'washer' }, compute);
    expect(other).toEqual({ hit: false, value: { n: 2 }, text: '{"n":2}' });
    expect(await responses.answer({ kind: 'public' }, { q: 'washer' }, compute)).toEqual({ hit: false, value: { n: 3 }, text: '{"n":3}' });
  });

  it('keeps nothing an answer asks not to be stored, and nothing when the time to keep is 0', async () => {
    const unstored = counter(false);
    const responses = new ResponseCache({ cache: new MemoryCache(), ttlMs: 60_000, logger });
    await responses.answer(scope, { q: 'x' }, unstored.compute);
    expect(await responses.answer(scope, { q: 'x' }, unstored.compute)).toEqual({ hit: false, value: { n: 2 } });

    const off = new ResponseCache({ cache: new MemoryCache(), ttlMs: 0, logger });
    const stored = counter();
    await off.answer(scope, { q: 'x' }, stored.compute);
    expect(await off.answer(scope, { q: 'x' }, stored.compute)).toEqual({ hit: false, value: { n: 2 } });
  });

  it('computes every answer when the cache cannot answer', async () => {
    const broken: Cache = Object.assign(new MemoryCache(), {
      version: async () => {
        throw new Error('cache down');
      },
    });
    const responses = new ResponseCache({ cache: broken, ttlMs: 60_000, logger });
    const { compute } = counter();
    expect(await responses.answer(scope, { q: 'x' }, compute)).toEqual({ hit: false, value: { n: 1 } });
    expect(await responses.answer(scope, { q: 'x' }, compute)).toEqual({ hit: false, value: { n: 2 } });
  });
});
