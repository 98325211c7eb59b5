import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { bearer, useTrove } from './support/system';

jest.setTimeout(90_000);

/**
 * What a tenant that floods sees through the gateway (docs/behaviour/fair-shares.md): past its queue's bound
 * its requests are refused with 429 and Retry-After, one that waits too long with 503 and Retry-After, while another
 * tenant's searches are answered. Small bounds make the refusals certain on any machine.
 */

const trove = useTrove({ env: { SEARCH_CACHE_TTL_MS: '0', TENANT_RATE_LIMITS: 'false', SCHEDULER_QUEUE_PER_TENANT: '3', SCHEDULER_MAX_WAIT_MS: '150' } });
const api = trove.api;

async function tenantWithRecords(): Promise<Record<string, string>> {
  const key = bearer(await trove.keyFor(randomUUID(), ['admin']));
  const records = Array.from({ length: 500 }, (_, i) => ({ name: `Fair share bolt ${i}`, collection_data: { size: i % 20 } }));
  expect((await api('POST', '/api/v1/upload/fair/bolt/batch', { headers: key, body: { records } })).status).toBe(201);
  return key;
}

/** One search on a connection of its own (fetch would take turns on a few), as one of many clients would send it. */
function search(auth: Record<string, string>, agent: Agent, body: unknown): Promise<{ status: number; retryAfter: string | undefined; detail: unknown }> {
  const url = new URL(`${trove.baseUrl}/api/v1/search/fair`);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers: { ...auth, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] as string | undefined, detail: (JSON.parse(text) as { detail?: unknown }).detail }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

it('refuses a flooding tenant past its share with 429 or 503 and Retry-After, and answers another tenant meanwhile', async () => {
  const a = await tenantWithRecords();
  const b = await tenantWithRecords();
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const burst = () => Array.from({ length: 40 }, (_, i) => search(a, agent, { query: `fair share bolt ${i}` }));
  // The first burst opens forty connections; the second arrives on them at once.
  await Promise.all(burst());
  const flood = burst();
  const mine = await api('POST', '/api/v1/search/fair', { headers: b, body: { query: 'fair share bolt 7' } });
  const answers = await Promise.all(flood);
  agent.destroy();

  expect(mine.status).toBe(200);
  const refused = answers.filter((r) => r.status !== 200);
  expect(refused.some((r) => r.status === 429)).toBe(true);
  for (const r of refused) {
    expect([429, 503]).toContain(r.status);
    expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(r.detail).toMatch(
      r.status === 429
        ? /^Too many of your search requests are waiting\. Try again in \d+ seconds\.$/
        : /^The system is busy: no search slot came free in time\. Try again in \d+ seconds\.$/,
    );
  }
  expect(answers.some((r) => r.status === 200)).toBe(true);
});
