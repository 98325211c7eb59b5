import { randomUUID } from 'node:crypto';
import { createTestDatabase, eventually, type TestDatabase } from '@trove/testing';
import { bearer, client, devTenant, startTrove, type Trove } from './support/system';

jest.setTimeout(120_000);

let trove: Trove;
let api: ReturnType<typeof client>;
let source: TestDatabase;
let admin: string;
let otherAdmin: string;

async function adminKey(tenant: string): Promise<string> {
  const res = await api('POST', '/api/v1/auth/keys', { headers: devTenant(tenant), body: { name: 'e2e', scopes: ['admin'] } });
  expect(res.status).toBe(201);
  return res.body.key;
}

beforeAll(async () => {
  trove = await startTrove();
  api = client(trove.baseUrl);
  admin = await adminKey(randomUUID());
  otherAdmin = await adminKey(randomUUID());
  // A tenant's own PostgreSQL database, on the test server.
  source = await createTestDatabase();
  await source.database.db.schema
    .createTable('catalogue')
    .addColumn('id', 'serial', (c) => c.primaryKey())
    .addColumn('title', 'text')
    .addColumn('standard', 'text')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await source.database.db
    .insertInto('catalogue')
    .values([
      { title: 'Zinc plated hex bolt', standard: 'DIN 933', updated_at: new Date(Date.now() - 60_000) },
      { title: 'Nylon lock nut', standard: 'DIN 985', updated_at: new Date(Date.now() - 60_000) },
    ])
    .execute();
});
afterAll(async () => {
  await trove?.stop();
  await source?.drop();
});

const connector = () => ({
  name: 'shop catalogue',
  connector_type: 'postgresql',
  collection: 'pulled-parts',
  record_type: 'part',
  connection_config: { dsn: source.url },
  query: 'select id::text as source_id, title, standard from catalogue where updated_at > :last_pull',
  name_column: 'title',
  schedule: '0 3 * * *',
});

it('pulls a PostgreSQL table through the gateway and search finds the pulled records', async () => {
  const created = await api('POST', '/api/v1/connectors', { headers: bearer(admin), body: connector() });
  expect(created.status).toBe(201);
  expect(created.body.connection_config).toBe('***REDACTED***');
  expect(JSON.stringify(created.body)).not.toContain(source.url);

  const listed = await api('GET', '/api/v1/connectors', { headers: bearer(admin) });
  expect(listed.status).toBe(200);
  expect(listed.body.map((c: { id: string; connection_config: string }) => [c.id, c.connection_config])).toEqual([[created.body.id, '***REDACTED***']]);

  const pulled = await api('POST', `/api/v1/connectors/${created.body.id}/pull`, { headers: bearer(admin) });
  expect(pulled.status).toBe(200);
  expect(pulled.body).toMatchObject({ status: 'completed', records_pulled: 2, records_uploaded: 2, duplicates_skipped: 0 });

  await eventually(async () => {
    const found = await api('POST', '/api/v1/search/pulled-parts', { headers: bearer(admin), body: { query: 'hex bolt' } });
    expect(found.status).toBe(200);
    expect(found.body.results.map((r: { name: string }) => r.name)).toContain('Zinc plated hex bolt');
    expect(found.body.results.find((r: { name: string }) => r.name === 'Zinc plated hex bolt').source_type).toBe('connector');
  }, 20_000);

  const again = await api('POST', `/api/v1/connectors/${created.body.id}/pull`, { headers: bearer(admin) });
  expect(again.body).toMatchObject({ status: 'completed', records_pulled: 0 });
});

it('answers 422 for an unknown type, a missing field and a bad cron expression', async () => {
  for (const body of [
    { ...connector(), connector_type: 'sqlite' },
    { ...connector(), connection_config: {} },
    { ...connector(), schedule: '61 * * * *' },
  ]) {
    const res = await api('POST', '/api/v1/connectors', { headers: bearer(admin), body });
    expect(res.status).toBe(422);
    expect(Array.isArray(res.body.detail)).toBe(true);
  }
});

it("answers 404 for another tenant's connector", async () => {
  const created = await api('POST', '/api/v1/connectors', { headers: bearer(admin), body: connector() });
  expect((await api('POST', `/api/v1/connectors/${created.body.id}/pull`, { headers: bearer(otherAdmin) })).status).toBe(404);
  expect((await api('DELETE', `/api/v1/connectors/${created.body.id}`, { headers: bearer(otherAdmin) })).status).toBe(404);
  expect((await api('GET', '/api/v1/connectors', { headers: bearer(otherAdmin) })).body).toEqual([]);
  expect((await api('DELETE', `/api/v1/connectors/${created.body.id}`, { headers: bearer(admin) })).status).toBe(204);
});
