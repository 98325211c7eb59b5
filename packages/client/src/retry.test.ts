import { TroveClient, TroveError, TroveNetworkError, TroveTimeoutError } from './index.js';
import { DEFAULT_RETRY, retryDelay } from './retry.js';
import { json, startServer, useServers } from './__tests__/server.js';

const RECORD_ID = '0b7b1c1e-4a4e-4f3a-9d1c-2f5e8a6b7c9d';
const serve = useServers();

/** A server answering each request in turn from `answers` (the last one again once they run out). */
async function answering(...answers: { status: number; body?: unknown; headers?: Record<string, string> }[]) {
  let n = 0;
  return serve((_req, res) => {
    const a = answers[Math.min(n++, answers.length - 1)]!;
    if (a.status === 204) {
      res.writeHead(204, a.headers);
      res.end();
    } else json(res, a.status, a.body ?? { detail: `answer ${n}` }, a.headers);
  });
}

const record = { id: RECORD_ID, name: 'Hex bolt' };

describe('retries', () => {
  it('waits as long as Retry-After says before asking again', async () => {
    const s = await answering({ status: 429, body: { detail: 'Rate limit exceeded. Try again in 1 seconds.' }, headers: { 'Retry-After': '1' } }, { status: 200, body: record });
    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'k' });
    const started = Date.now();
    const answer = await trove.records.get(RECORD_ID);
    expect(answer).toEqual(record);
    expect(s.received).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('gives up after the configured attempts and throws the last refusal', async () => {
    const s = await answering({ status: 503, body: { detail: 'The system is busy' }, headers: { 'Retry-After': '0' } });
    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'k', retry: { attempts: 3 } });
    const error = await trove.records.get(RECORD_ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TroveError);
    expect(error).toMatchObject({ status: 503, detail: 'The system is busy', retryAfter: 0 });
    expect(s.received).toHaveLength(3);
  });

  it('does not wait for a Retry-After longer than maxDelayMs: the refusal is thrown at once with it', async () => {
    const s = await answering({ status: 429, body: { detail: 'Too many' }, headers: { 'Retry-After': '120' } });
    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'k', retry: { maxDelayMs: 5_000 } });
    const started = Date.now();
    await expect(trove.records.get(RECORD_ID)).rejects.toMatchObject({ status: 429, retryAfter: 120 });
    expect(s.received).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('sends a POST again after a 429, with the same body', async () => {
    const s = await answering({ status: 429, headers: { 'Retry-After': '0' } }, { status: 201, body: { ...record, collection: 'parts' } });
    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'k' });
    await trove.records.create({ name: 'Hex bolt', collection: 'parts', record_type: 'product' });
    expect(s.received.map((r) => [r.method, r.url, r.body.toString()])).toEqual([
      ['POST', '/api/v1/records', '{"name":"Hex bolt","collection":"parts","record_type":"product"}'],
      ['POST', '/api/v1/records', '{"name":"Hex bolt","collection":"parts","record_type":"product"}'],
    ]);
    expect(s.received[1]!.headers.authorization).toBe('Bearer k');
  });

  it('backs off with jitter on a 503 without Retry-After for a GET, but never repeats such a POST', async () => {
    const s = await answering({ status: 503, body: { detail: 'The records service is unavailable; try again shortly' } }, { status: 200, body: record });
    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'k', retry: { baseDelayMs: 10 } });
    await expect(trove.records.get(RECORD_ID)).resolves.toEqual(record);
    expect(s.received).toHaveLength(2);

    const t = await answering({ status: 503, body: { detail: 'The records service is unavailable; try again shortly' } }, { status: 201, body: record });
    const posting = new TroveClient({ baseUrl: t.url, apiKey: 'k', retry: { baseDelayMs: 10 } });
    await expect(posting.records.create({ name: 'x', collection: 'c', record_type: 't' })).rejects.toMatchObject({ status: 503 });
    expect(t.received).toHaveLength(1);
  });

  it('never retries with retry: false, nor an answer that is no refusal to come back', async () => {
    const s = await answering({ status: 429, headers: { 'Retry-After': '0' } });
    await expect(new TroveClient({ baseUrl: s.url, retry: false }).records.get(RECORD_ID)).rejects.toMatchObject({ status: 429 });
    expect(s.received).toHaveLength(1);
    const t = await answering({ status: 500, body: { detail: 'Internal server error' } });
    await expect(new TroveClient({ baseUrl: t.url }).records.get(RECORD_ID)).rejects.toMatchObject({ status: 500 });
    expect(t.received).toHaveLength(1);
  });

  it('computes full-jitter backoff bounded by maxDelayMs, and honours Retry-After exactly', () => {
    const policy = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1_000 };
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelay(policy, attempt, undefined, () => 1))).toEqual([100, 200, 400, 800, 1_000]);
    expect(retryDelay(policy, 3, undefined, () => 0.5)).toBe(200);
    expect(retryDelay(policy, 1, 0.5)).toBe(500);
    expect(retryDelay(policy, 1, 2)).toBeUndefined();
  });

  it('stops waiting to retry when the caller aborts', async () => {
    const s = await answering({ status: 429, headers: { 'Retry-After': '20' } });
    const trove = new TroveClient({ baseUrl: s.url });
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    setTimeout(() => controller.abort(reason), 100);
    const started = Date.now();
    await expect(trove.call('GET', '/api/v1/records/{id}', { params: { path: { id: RECORD_ID } }, signal: controller.signal })).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('no answer', () => {
  it('throws TroveTimeoutError when the answer does not come within timeoutMs', async () => {
    const server = await serve(() => undefined);
    const trove = new TroveClient({ baseUrl: server.url, timeoutMs: 200 });
    const error = await trove.records.get(RECORD_ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TroveTimeoutError);
    expect(error).toBeInstanceOf(TroveNetworkError);
    expect(error).toMatchObject({ method: 'GET', path: `/api/v1/records/${RECORD_ID}`, timeoutMs: 200 });
  });

  it('throws TroveNetworkError when nothing listens, after trying an idempotent request again', async () => {
    const s = await startServer(() => undefined);
    const url = s.url;
    await s.close();
    const trove = new TroveClient({ baseUrl: url, retry: { attempts: 2, baseDelayMs: 1 } });
    const error = await trove.records.get(RECORD_ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TroveNetworkError);
    expect(error).not.toBeInstanceOf(TroveTimeoutError);
    expect((error as Error).message).toMatch(/^GET \/api\/v1\/records\/.* failed: /);
  });
});
