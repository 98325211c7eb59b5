import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '@trove/testing';
import { openModule } from '../src';
import { startSystem, type System } from './helpers';

let sys: System;

beforeAll(async () => {
  sys = await startSystem({ OPEN_SEARCH_LIMIT_PER_MINUTE: '3', OPEN_LOOKUP_LIMIT_PER_MINUTE: '5' });
});
afterAll(() => sys.stop());

describe('per-IP rate limits', () => {
  it('answers 429 with the headers and Retry-After past the search limit, and counts per IP', async () => {
    const client = sys.client('198.51.100.1');
    // The window opens at the first request, somewhere between these two instants.
    const before = Math.floor(Date.now() / 1000);
    const answers = [await client.post('/search', { query: 'anything' })];
    const afterFirst = Math.ceil(Date.now() / 1000);
    for (let i = 0; i < 3; i++) answers.push(await client.post('/search', { query: 'anything' }));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((r) => r.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0', '0']);
    for (const r of answers) expect(r.headers['x-ratelimit-limit']).toBe('3');
    const limited = answers[3]!;
    const reset = Number(limited.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThanOrEqual(before + 59);
    expect(reset).toBeLessThanOrEqual(afterFirst + 60);
    const retry = Number(limited.headers['retry-after']);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(limited.body).toEqual({ detail: `Rate limit exceeded. Try again in ${retry} seconds.` });

    // Aggregate shares the search allowance; lookups have their own; another address has its own.
    expect((await client.post('/aggregate', {})).status).toBe(429);
    expect((await client.get('/collections')).status).toBe(200);
    expect((await client.get('/collections')).headers['x-ratelimit-limit']).toBe('5');
    expect((await sys.client('198.51.100.2').post('/search', { query: 'anything' })).status).toBe(200);
  });

  it('limits lookups at their own limit, 404s and 422s counted too', async () => {
    const client = sys.client('198.51.100.3');
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await client.get(`/records/${randomUUID()}`)).status);
    statuses.push((await client.get('/records/nope')).status);
    statuses.push((await client.get('/collections/none/schema')).status);
    const last = await client.get('/collections');
    expect([...statuses, last.status]).toEqual([404, 404, 404, 422, 404, 429]);
    expect(last.headers['x-ratelimit-remaining']).toBe('0');
  });

  describe('behind a proxy that is not trusted', () => {
    let strict: TestService;
    beforeAll(async () => {
      strict = await startTestService(openModule, {
        database: sys.db.database,
        config: { TRUSTED_PROXIES: '192.0.2.10', OPEN_SEARCH_LIMIT_PER_MINUTE: '2', RECORDS_URL: 'http://127.0.0.1:9', SEARCH_URL: 'http://127.0.0.1:9' },
      });
    });
    afterAll(() => strict.stop());

    it('ignores X-Forwarded-For and counts the connecting address', async () => {
      const from = (ip: string) => request(strict.instance.app).post('/aggregate').set(strict.as(randomUUID(), [])).set('x-forwarded-for', ip).send({});
      const remaining = [];
      for (const ip of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) remaining.push((await from(ip)).headers['x-ratelimit-remaining']);
      expect(remaining).toEqual(['1', '0', '0']);
      expect((await from('10.0.0.4')).status).toBe(429);
    });
  });
});
