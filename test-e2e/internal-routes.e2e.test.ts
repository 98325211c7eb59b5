import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { bearer, useTrove } from './support/system';

/**
 * No spelling of a service's /internal routes answers through the gateway, with or without a credential: the tester's
 * `GET /open/v1/INTERNAL/open/search-counts?tenant_id=<any tenant>` answered another tenant's Open analytics.
 */
jest.setTimeout(120_000);

const trove = useTrove();
let key: string;
let tenantId: string;

beforeAll(async () => {
  tenantId = randomUUID();
  const { api } = trove;
  key = await trove.keyFor(tenantId, ['admin']);
  await api('POST', '/api/v1/records', {
    headers: bearer(key),
    body: { name: 'Public M8 bolt', collection: 'bolts', record_type: 'part', visibility: 'public' },
  });
  await api('POST', '/open/v1/search', { body: { query: 'bolt' } });
});

/** A GET sent with the path exactly as written (fetch would normalise dot segments and some escapes). */
function rawGet(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const url = new URL(trove.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const SPELLINGS = [
  '/open/v1/internal/open/search-counts',
  '/open/v1/INTERNAL/open/search-counts',
  '/open/v1/Internal/open/search-counts',
  '/open/v1//internal/open/search-counts',
  '/open/v1///Internal//open/search-counts',
  '/open/v1/%69nternal/open/search-counts',
  '/open/v1/%49NTERNAL/open/search-counts',
  '/open/v1/x/../internal/open/search-counts',
  '/open/v1/x/%2e%2e/internal/open/search-counts',
  '/open/v1/%2Finternal/open/search-counts',
  '/open/v1/%252Finternal/open/search-counts',
  '/open/v1\\internal/open/search-counts',
  '/OPEN/v1/internal/open/search-counts',
  '/api/v1/records/../../open/v1/internal/open/search-counts',
];

it.each(SPELLINGS)('answers 404 without a credential to %s', async (path) => {
  const res = await rawGet(`${path}?tenant_id=${tenantId}`);
  expect(res.status).toBe(404);
  expect(res.body).not.toContain('bolts');
});

it.each(SPELLINGS)('answers 404 to a key holder for %s', async (path) => {
  const res = await rawGet(`${path}?tenant_id=${tenantId}`, bearer(key));
  expect(res.status).toBe(404);
  expect(res.body).not.toContain('bolts');
});
