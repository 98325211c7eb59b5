import { randomUUID } from 'node:crypto';
import { bearer, useTrove, type ApiResponse } from './support/system';

// The month's 51st search of a free tenant takes three of its one-minute search windows (20 searches each).
jest.setTimeout(300_000);

const trove = useTrove({
  env: {
    DEPLOYMENT_MODE: 'cloud',
    // Cloud mode needs the payment provider's settings to start; nothing here calls it.
    STRIPE_SECRET_KEY: 'sk_test_rate_limits_e2e',
    STRIPE_WEBHOOK_SECRET: 'whsec_rate_limits_e2e',
    STRIPE_API_URL: 'http://127.0.0.1:9',
  },
});
const api = trove.api;

/** A new tenant (free, as every new tenant in the cloud) with an admin key, and one record to search. */
async function freeTenant(): Promise<Record<string, string>> {
  const key = bearer(await trove.keyFor(randomUUID(), ['admin']));
  const upload = await api('POST', '/api/v1/upload/parts/product/batch', { headers: key, body: { records: [{ name: 'Hex bolt M8' }] } });
  expect(upload.status).toBe(201);
  return key;
}

const remaining = (res: ApiResponse) => Number(res.headers.get('x-ratelimit-remaining'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function expectRefused(res: ApiResponse, limit: string): number {
  expect(res.status).toBe(429);
  const seconds = Number(res.headers.get('retry-after'));
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(60);
  expect(res.body).toEqual({ detail: `Rate limit exceeded. Try again in ${seconds} seconds.` });
  expect(res.headers.get('x-ratelimit-limit')).toBe(limit);
  expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
  return seconds;
}

describe('tenant limits of the free plan through the gateway (cloud mode)', () => {
  it('answers 429 with the headers past 60 calls a minute, while another tenant is unaffected at the same moment', async () => {
    const flooding = await freeTenant();
    const other = await freeTenant();

    const first = await api('GET', '/api/v1/collections', { headers: flooding });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('60');
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
    const left = remaining(first);

    const answers = [];
    for (let i = 0; i <= left; i++) answers.push(await api('GET', '/api/v1/collections', { headers: flooding }));
    const otherAnswer = await api('GET', '/api/v1/collections', { headers: other });

    expect(answers.slice(0, left).every((r) => r.status === 200)).toBe(true);
    expect(answers.slice(0, left).map(remaining)).toEqual(Array.from({ length: left }, (_, i) => left - 1 - i));
    expectRefused(answers[left]!, '60');
    expect(otherAnswer.status).toBe(200);
    expect(otherAnswer.headers.get('x-ratelimit-limit')).toBe('60');
    expect(remaining(otherAnswer)).toBeGreaterThan(50);
  });

  it("answers 402 on a free tenant's 51st search of the month, while another tenant searches on", async () => {
    const searching = await freeTenant();
    const other = await freeTenant();
    const search = (key: Record<string, string>) => api('POST', '/api/v1/search/parts', { headers: key, body: { query: 'bolt' } });

    let served = 0;
    while (served < 50) {
      const res = await search(searching);
      if (res.status === 429) {
        // The search allowance (20 a minute) comes first: wait for the next window, as a client would.
        await sleep(expectRefused(res, '20') * 1000 + 250);
        continue;
      }
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('20');
      served++;
    }
    let refused = await search(searching);
    if (refused.status === 429) {
      await sleep(Number(refused.headers.get('retry-after')) * 1000 + 250);
      refused = await search(searching);
    }
    const otherAnswer = await search(other);

    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({ detail: expect.stringContaining('50') });
    expect(otherAnswer.status).toBe(200);
    expect(otherAnswer.body.results.map((r: { name: string }) => r.name)).toEqual(['Hex bolt M8']);
    // Other calls go on for the tenant over its month of searches.
    expect((await api('GET', '/api/v1/collections', { headers: searching })).status).toBe(200);
  });
});
