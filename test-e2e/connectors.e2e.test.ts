import { randomUUID } from 'node:crypto';
import mysql from 'mysql2/promise';
import { createTestDatabase, eventually, type TestDatabase } from '@trove/testing';
import { bearer, useTrove } from './support/system';

jest.setTimeout(120_000);

const trove = useTrove();
const api = trove.api;
let source: TestDatabase;
let admin: string;
let otherAdmin: string;

beforeAll(async () => {
  admin = await trove.keyFor(randomUUID(), ['admin']);
  otherAdmin = await trove.keyFor(randomUUID(), ['admin']);
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
// Hooks run in the order declared: the system (useTrove's afterAll) stops before its source is dropped.
afterAll(async () => source?.drop());

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

  // A row changed after the last pull: the next pull reads it alone.
  await source.database.db.insertInto('catalogue').values({ title: 'Stainless washer', standard: 'DIN 125', updated_at: new Date() }).execute();
  const third = await api('POST', `/api/v1/connectors/${created.body.id}/pull`, { headers: bearer(admin) });
  expect(third.body).toMatchObject({ status: 'completed', records_pulled: 1, records_uploaded: 1 });
  await eventually(async () => {
    const found = await api('POST', '/api/v1/search/pulled-parts', { headers: bearer(admin), body: { query: 'washer' } });
    expect(found.body.results.map((r: { name: string }) => r.name)).toEqual(['Stainless washer']);
  }, 20_000);
});

it('pulls a MariaDB table through the gateway and search finds the pulled records; a second pull reads only new rows', async () => {
  const database = `trove_e2e_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const maria = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', timezone: 'Z' });
  try {
    await maria.query(`create database ${database}`);
    await maria.query(`use ${database}`);
    await maria.query('create table tools (id int auto_increment primary key, label varchar(200), price decimal(10,2), changed_at datetime(3) not null)');
    await maria.query("insert into tools (label, price, changed_at) values ('Cordless drill', 129.90, utc_timestamp(3) - interval 1 hour), ('Torque wrench', 89.50, utc_timestamp(3) - interval 1 hour)");
    const created = await api('POST', '/api/v1/connectors', {
      headers: bearer(admin),
      body: {
        name: 'tools',
        connector_type: 'mysql',
        collection: 'pulled-tools',
        record_type: 'tool',
        connection_config: { host: '127.0.0.1', port: 3306, user: 'root', password: '', database },
        query: 'select id as source_id, label, price from tools where changed_at > :last_pull',
        name_column: 'label',
      },
    });
    expect(created.status).toBe(201);
    const first = await api('POST', `/api/v1/connectors/${created.body.id}/pull`, { headers: bearer(admin) });
    expect(first.body).toMatchObject({ status: 'completed', records_pulled: 2, records_uploaded: 2 });
    await eventually(async () => {
      const found = await api('POST', '/api/v1/search/pulled-tools', { headers: bearer(admin), body: { query: 'drill' } });
      expect(found.body.results).toEqual([expect.objectContaining({ name: 'Cordless drill', source_type: 'connector', collection_data: expect.objectContaining({ price: 129.9 }) })]);
    }, 20_000);

    await maria.query("insert into tools (label, price, changed_at) values ('Spirit level', 24.00, utc_timestamp(3))");
    const second = await api('POST', `/api/v1/connectors/${created.body.id}/pull`, { headers: bearer(admin) });
    expect(second.body).toMatchObject({ status: 'completed', records_pulled: 1, records_uploaded: 1 });
    await eventually(async () => {
      const found = await api('POST', '/api/v1/search/pulled-tools', { headers: bearer(admin), body: { query: 'spirit level' } });
      expect(found.body.results.map((r: { name: string }) => r.name)).toEqual(['Spirit level']);
    }, 20_000);
  } finally {
    await maria.query(`drop database if exists ${database}`);
    await maria.end();
  }
});

it('needs the admin scope on every connector path', async () => {
  const headers = bearer(await trove.keyFor({ adminKey: admin }, ['records', 'search', 'upload']));
  const id = randomUUID();
  const answers = [
    await api('GET', '/api/v1/connectors', { headers }),
    await api('POST', '/api/v1/connectors', { headers, body: connector() }),
    await api('POST', `/api/v1/connectors/${id}/pull`, { headers }),
    await api('DELETE', `/api/v1/connectors/${id}`, { headers }),
  ];
  expect(answers.map((a) => a.status)).toEqual([403, 403, 403, 403]);
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
