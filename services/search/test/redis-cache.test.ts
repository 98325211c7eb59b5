import { spawnSync } from 'node:child_process';
import { product, startSystem, type System } from './helpers';

/** The response cache on Redis (REDIS_URL), as replicas share it; skipped, and saying so, without a Redis server. */
const REDIS_URL = process.env.REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const reachable =
  spawnSync(process.execPath, ['-e', `const u=new URL(${JSON.stringify(REDIS_URL)});const s=require('net').connect(+u.port||6379,u.hostname,()=>{s.write('PING\\r\\n')});s.on('data',d=>process.exit(String(d).startsWith('+PONG')?0:1));s.on('error',()=>process.exit(1));setTimeout(()=>process.exit(1),2000)`], {
    timeout: 5_000,
  }).status === 0;
if (!reachable) console.warn(`Redis search-cache run skipped: ${REDIS_URL} is unreachable`);

(reachable ? describe : describe.skip)('the search response cache on Redis', () => {
  let sys: System;
  beforeAll(async () => {
    sys = await startSystem({ REDIS_URL });
  });
  afterAll(() => sys?.stop());

  it('answers a repeated search from Redis and forgets it when the collection changes', async () => {
    const t = sys.tenant();
    await t.records.post('/records', product({ collection: 'redis-cache', name: 'Redis cached clamp' }));
    const search = () => t.search.post('/search/redis-cache', { query: 'clamp' });
    expect((await search()).body.metadata.cache_hit).toBe(false);
    const again = await search();
    expect(again.body.metadata.cache_hit).toBe(true);
    expect(again.body.results.map((r: { name: string }) => r.name)).toEqual(['Redis cached clamp']);

    await t.records.post('/records', product({ collection: 'redis-cache', name: 'Second clamp' }));
    const after = await search();
    expect(after.body.metadata.cache_hit).toBe(false);
    expect(after.body.results).toHaveLength(2);
  });
});
