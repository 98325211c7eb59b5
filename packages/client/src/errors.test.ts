import { TroveClient, TroveError } from './index.js';
import { retryAfterSeconds } from './errors.js';
import { json, useServers } from './__tests__/server.js';

const serve = useServers();
const ID = '0b7b1c1e-4a4e-4f3a-9d1c-2f5e8a6b7c9d';

describe('errors', () => {
  it('throws a TroveError with the status, the detail and the request id of a refusal', async () => {
    const s = await serve((_req, res) => json(res, 404, { detail: 'Record not found' }, { 'X-Request-Id': 'req-123' }));
    const error = await new TroveClient({ baseUrl: s.url, apiKey: 'k' }).records.get(ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TroveError);
    expect(error).toMatchObject({ name: 'TroveError', status: 404, detail: 'Record not found', issues: [], requestId: 'req-123', method: 'GET', path: `/api/v1/records/${ID}` });
    expect((error as Error).message).toBe(`GET /api/v1/records/${ID} answered 404: Record not found`);
  });

  it('lists the problems of a 422 and joins them into its detail', async () => {
    const detail = [
      { loc: ['body', 'name'], msg: 'Field required', type: 'missing', input: {} },
      { loc: ['body', 'collection_data', 'size'], msg: 'Input should be a valid string', type: 'string_type', input: 3 },
    ];
    const s = await serve((_req, res) => json(res, 422, { detail }));
    const error = (await new TroveClient({ baseUrl: s.url })
      .call('POST', '/api/v1/records', { body: { name: '', collection: 'c', record_type: 't' } })
      .catch((e: unknown) => e)) as TroveError;
    expect(error.status).toBe(422);
    expect(error.issues).toEqual(detail);
    expect(error.detail).toBe('body.name: Field required; body.collection_data.size: Input should be a valid string');
    expect(error.body).toEqual({ detail });
  });

  it('reads a refusal that is not JSON as text', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>Bad gateway</html>\n');
    });
    await expect(new TroveClient({ baseUrl: s.url, retry: false }).records.get(ID)).rejects.toMatchObject({ status: 502, detail: '<html>Bad gateway</html>', body: '<html>Bad gateway</html>\n' });
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterSeconds('7', now)).toBe(7);
    expect(retryAfterSeconds('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds('Tue, 31 Dec 2024 23:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds(null, now)).toBeUndefined();
  });
});

describe('credentials', () => {
  it('sends the API key to key routes, the portal token to portal routes, and nothing to sign-in or the Open API', async () => {
    const s = await serve((req, res) => json(res, 200, req.url.startsWith('/api/v1/portal/auth') ? { token: 'fresh-token' } : { results: [], keys: [] }));
    const trove = new TroveClient({ baseUrl: `${s.url}/`, apiKey: 'the-key' });
    await trove.call('GET', '/api/v1/auth/keys');
    await trove.portal.signIn({ email: 'ada@example.com', password: 'a long passphrase' });
    await trove.portal.listKeys();
    await trove.call('GET', '/open/v1/collections');
    trove.setApiKey('another-key');
    await trove.call('GET', '/api/v1/auth/keys', { headers: { 'X-Trace': '1' } });
    await trove.call('GET', '/api/v1/auth/keys', { headers: { Authorization: 'Bearer explicit' } });
    expect(s.received.map((r) => [r.url, r.headers.authorization])).toEqual([
      ['/api/v1/auth/keys', 'Bearer the-key'],
      ['/api/v1/portal/auth/login', undefined],
      ['/api/v1/portal/keys', 'Bearer fresh-token'],
      ['/open/v1/collections', undefined],
      ['/api/v1/auth/keys', 'Bearer another-key'],
      ['/api/v1/auth/keys', 'Bearer explicit'],
    ]);
    expect(s.received[4]!.headers['x-trace']).toBe('1');
  });
});
