import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import { TOPICS } from '@trove/contracts';
import { ServiceClient, serviceUrl } from '@trove/platform';
import { eventually } from '@trove/testing';
import { CredentialCipher } from '../src/domain/cipher';
import { PullService } from '../src/pull-service';
import { Scheduler } from '../src/scheduler';
import { sourceOpener } from '../src/sources';
import { KEY_A, sourceMysql, sourcePostgres, startStack, type Stack } from './stack';

let stack: Stack;
let pgSource: Awaited<ReturnType<typeof sourcePostgres>>;
let mySource: Awaited<ReturnType<typeof sourceMysql>>;

beforeAll(async () => {
  stack = await startStack();
  pgSource = await sourcePostgres();
  await pgSource.query(`create table items (id serial primary key, title text, sku text, price numeric(10,2), big bigint, payload bytea, tags jsonb, updated_at timestamptz not null default now())`);
  mySource = await sourceMysql();
  await mySource.connection.query(
    `create table parts (id int auto_increment primary key, label varchar(200), weight double, price decimal(10,2), blob_col varbinary(16), big bigint, updated_at datetime(3) not null)`,
  );
}, 60_000);
afterAll(async () => {
  await pgSource?.drop();
  await mySource?.drop();
  await stack?.stop();
});

/** A PullService of its own (another process, as far as leases go) over the stack's database and ingestion. */
function pullService(logger: pino.Logger = pino({ level: 'silent' })): PullService {
  const config = stack.connector.ctx.config;
  return new PullService({
    db: stack.connector.database.db,
    cipher: new CredentialCipher([KEY_A]),
    open: sourceOpener(),
    ingestion: new ServiceClient({ service: 'ingestion', caller: 'connector', target: serviceUrl(config, 'ingestion'), internalTokenSecret: config.INTERNAL_TOKEN_SECRET }),
    uploadTimeoutMs: 30_000,
    logger,
    cloud: false,
    connectTimeoutMs: 5_000,
    statementTimeoutMs: 10_000,
  });
}

const admin = (tenant: string) => stack.connector.as(tenant, ['admin'], `key:${randomUUID()}`);
const api = (tenant: string) => ({
  post: (path: string, body?: object) => request(stack.connector.instance.app).post(path).set(admin(tenant)).send(body),
  get: (path: string) => request(stack.connector.instance.app).get(path).set(admin(tenant)),
  delete: (path: string) => request(stack.connector.instance.app).delete(path).set(admin(tenant)),
});

function pgConnector(overrides: Record<string, unknown> = {}) {
  return {
    name: 'catalogue',
    connector_type: 'postgresql',
    collection: 'pg-items',
    record_type: 'item',
    connection_config: { dsn: pgSource.dsn },
    query: 'select id::text as source_id, title, sku, price, big, payload, tags, updated_at from items where updated_at > :last_pull order by id',
    name_column: 'title',
    batch_size: 2,
    ...overrides,
  };
}

describe('connectors: create, list, delete', () => {
  it('creates a connector and answers it with the credentials redacted, and stores them encrypted, not as text', async () => {
    const tenant = randomUUID();
    const res = await api(tenant).post('/connectors', pgConnector({ connection_config: { dsn: 'postgres://reader:Sup3rSecretPw@db.example.com:5432/shop' } }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'catalogue', connector_type: 'postgresql', collection: 'pg-items', record_type: 'item', connection_config: '***REDACTED***', batch_size: 2 });
    expect(JSON.stringify(res.body)).not.toContain('Sup3rSecretPw');

    const stored = await stack.db.database.db
      .selectFrom('connector.connectors' as never)
      .select('connection_config' as never)
      .where('id' as never, '=', res.body.id as never)
      .executeTakeFirstOrThrow();
    const text = (stored as { connection_config: string }).connection_config;
    expect(text).not.toContain('Sup3rSecretPw');
    expect(text).not.toContain('db.example.com');
    expect(new CredentialCipher([KEY_A]).decrypt(text)).toEqual({ dsn: 'postgres://reader:Sup3rSecretPw@db.example.com:5432/shop' });

    const list = await api(tenant).get('/connectors');
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0].connection_config).toBe('***REDACTED***');
    expect(JSON.stringify(list.body)).not.toContain('Sup3rSecretPw');
  });

  it('answers 422 for an unknown type, a missing field and a bad cron expression, without echoing credentials', async () => {
    const tenant = randomUUID();
    const unknown = await api(tenant).post('/connectors', pgConnector({ connector_type: 'oracle' }));
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0]).toMatchObject({ loc: ['body', 'connector_type'], type: 'enum' });

    const missing = await api(tenant).post('/connectors', { ...pgConnector(), connector_type: 'mysql', connection_config: { host: 'h', user: 'u', password: 'Pw-not-echoed', database: 'd', port: 3306 }, query: undefined });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc: ['body', 'query'], type: 'missing' })]));
    expect(JSON.stringify(missing.body)).not.toContain('Pw-not-echoed');

    const noPassword = await api(tenant).post('/connectors', pgConnector({ connector_type: 'neo4j', connection_config: { uri: 'neo4j://graph:7687', user: 'neo' } }));
    expect(noPassword.status).toBe(422);
    expect(noPassword.body.detail[0]).toMatchObject({ loc: ['body', 'connection_config', 'password'], type: 'missing', input: '***REDACTED***' });

    const cron = await api(tenant).post('/connectors', pgConnector({ schedule: 'every tuesday' }));
    expect(cron.status).toBe(422);
    expect(cron.body.detail[0]).toMatchObject({ loc: ['body', 'schedule'], msg: 'Invalid cron expression' });

    const filter = await api(tenant).post('/connectors', pgConnector({ connector_type: 'mongodb', connection_config: { uri: 'mongodb://m', database: 'd', collection: 'c' }, query: 'select 1' }));
    expect(filter.status).toBe(422);
    expect(filter.body.detail[0]).toMatchObject({ loc: ['body', 'query'] });

    // A misspelt field is refused, not silently dropped: in the body, and in the settings (still never echoed).
    const typo = await api(tenant).post('/connectors', pgConnector({ shedule: '0 * * * *' }));
    expect(typo.status).toBe(422);
    expect(typo.body.detail[0]).toMatchObject({ loc: ['body', 'shedule'], type: 'extra_forbidden' });
    const settingsTypo = await api(tenant).post('/connectors', pgConnector({ connector_type: 'mysql', connection_config: { host: 'h', user: 'u', pasword: 'Pw-not-echoed', password: '', database: 'd' } }));
    expect(settingsTypo.status).toBe(422);
    expect(settingsTypo.body.detail[0]).toMatchObject({ loc: ['body', 'connection_config', 'pasword'], type: 'extra_forbidden', input: '***REDACTED***' });
    expect(JSON.stringify(settingsTypo.body)).not.toContain('Pw-not-echoed');
    expect((await api(tenant).get('/connectors')).body).toEqual([]);
  });

  it("answers 404 for another tenant's connector, and deletes a connector with its credentials", async () => {
    const owner = randomUUID();
    const other = randomUUID();
    const created = await api(owner).post('/connectors', pgConnector());
    expect((await api(other).post(`/connectors/${created.body.id}/pull`)).status).toBe(404);
    expect((await api(other).delete(`/connectors/${created.body.id}`)).status).toBe(404);
    expect((await api(other).get('/connectors')).body).toEqual([]);

    expect((await api(owner).delete(`/connectors/${created.body.id}`)).status).toBe(204);
    const left = await stack.db.database.db.selectFrom('connector.connectors' as never).selectAll().where('id' as never, '=', created.body.id as never).execute();
    expect(left).toEqual([]);
    expect((await api(owner).delete(`/connectors/${created.body.id}`)).status).toBe(404);
    expect((await api(owner).post(`/connectors/${created.body.id}/pull`)).status).toBe(404);
  });

  it('needs the admin scope', async () => {
    const tenant = randomUUID();
    const res = await request(stack.connector.instance.app).get('/connectors').set(stack.connector.as(tenant, ['upload']));
    expect(res.status).toBe(403);
  });
});

describe('pulling from PostgreSQL', () => {
  it('lands the rows in records, converted to JSON, and a second pull with :last_pull fetches only the new rows', async () => {
    await pgSource.query(
      `insert into items (title, sku, price, big, payload, tags, updated_at) values
        ('Hex bolt M8', 'HB-8', 1.25, 9007199254740993, '\\x0102', '{"din": "933"}', now() - interval '1 hour'),
        ('Hex nut M8', 'HN-8', 0.30, 7, null, null, now() - interval '1 hour'),
        ('Washer M8', 'W-8', 0.05, 1, null, null, now() - interval '1 hour')`,
    );
    const tenant = randomUUID();
    const created = await api(tenant).post('/connectors', pgConnector());
    const first = await api(tenant).post(`/connectors/${created.body.id}/pull`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'completed', records_pulled: 3, records_uploaded: 3, duplicates_skipped: 0 });
    expect(typeof first.body.duration_seconds).toBe('number');

    const stored = await stack.recordsOf(tenant, 'pg-items');
    expect(stored.map((r) => r.name).sort()).toEqual(['Hex bolt M8', 'Hex nut M8', 'Washer M8']);
    const bolt = await request(stack.records.instance.app).get(`/records/${stored.find((r) => r.name === 'Hex bolt M8')!.id}`).set(stack.records.as(tenant, ['records']));
    expect(bolt.body.source_type).toBe('connector');
    expect(bolt.body.source_name).toBe('catalogue');
    expect(bolt.body.collection_data).toMatchObject({ sku: 'HB-8', price: 1.25, big: '9007199254740993', payload: 'AQI=', tags: { din: '933' } });
    expect(bolt.body.collection_data.updated_at).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);

    await pgSource.query(`insert into items (title, sku, updated_at) values ('Spring washer M8', 'SW-8', now() + interval '1 second')`);
    const second = await api(tenant).post(`/connectors/${created.body.id}/pull`);
    expect(second.body).toMatchObject({ status: 'completed', records_pulled: 1, records_uploaded: 1 });
    expect((await stack.recordsOf(tenant, 'pg-items')).map((r) => r.name)).toContain('Spring washer M8');
  });

  it('skips unchanged rows as duplicates and makes a row without a name a dead letter, not a crash', async () => {
    const tenant = randomUUID();
    const created = await api(tenant).post('/connectors', pgConnector({ query: "select id::text as source_id, title, sku from items union all select 'x', null, 'NO-NAME' order by 1", collection: 'pg-dedup' }));
    const first = await api(tenant).post(`/connectors/${created.body.id}/pull`);
    expect(first.body.status).toBe('completed');
    expect(first.body.records_rejected).toBe(1);
    const again = await api(tenant).post(`/connectors/${created.body.id}/pull`);
    expect(again.body).toMatchObject({ status: 'completed', records_uploaded: 0, duplicates_skipped: first.body.records_uploaded, records_rejected: 1 });
    const errors = await request(stack.ingestion.instance.app).get(`/uploads/${again.body.upload_id}/errors`).set(stack.ingestion.as(tenant, ['upload']));
    expect(JSON.stringify(errors.body)).toContain('NO-NAME');
  });

  it('answers a failed pull, never a 500, for an unreachable database and for a failing query, naming no credential', async () => {
    const tenant = randomUUID();
    const unreachable = await api(tenant).post('/connectors', pgConnector({ connection_config: { dsn: 'postgres://reader:Unre4chablePw@127.0.0.1:1/shop' } }));
    const down = await api(tenant).post(`/connectors/${unreachable.body.id}/pull`);
    expect(down.status).toBe(200);
    expect(down.body).toMatchObject({ status: 'failed', records_pulled: 0, records_uploaded: 0 });
    expect(down.body.error).toMatch(/ECONNREFUSED/);
    expect(JSON.stringify(down.body)).not.toContain('Unre4chablePw');

    const bad = await api(tenant).post('/connectors', pgConnector({ query: 'select * from no_such_table' }));
    const failing = await api(tenant).post(`/connectors/${bad.body.id}/pull`);
    expect(failing.body).toMatchObject({ status: 'failed', records_pulled: 0 });
    expect(failing.body.error).toMatch(/no_such_table/);
  });

  it('keeps credentials out of a failed pull\'s message and out of the log, even when the driver names them', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'trace' }, new Writable({ write: (chunk, _e, cb) => (lines.push(String(chunk)), cb()) }));
    const pulls = pullService(logger);
    const tenant = randomUUID();
    // PostgreSQL names the role it refuses, and the role is a credential too.
    const dsn = new URL(pgSource.dsn);
    dsn.username = 'trove_secret_role_q7';
    dsn.password = 'Pa55word-in-dsn';
    const created = await api(tenant).post('/connectors', pgConnector({ connection_config: { dsn: dsn.toString() } }));
    const result = await pulls.pull(tenant, created.body.id, { tenantId: tenant, principal: 'test', scopes: ['admin'] });
    expect(result).toMatchObject({ status: 'failed' });
    const text = JSON.stringify(result) + lines.join('');
    expect(lines.join('')).toContain('connector pull failed');
    expect(text).toContain('***');
    expect(text).not.toContain('trove_secret_role_q7');
    expect(text).not.toContain('Pa55word-in-dsn');
    expect(text).not.toContain(dsn.toString());
  });
});

describe('pulling from MariaDB', () => {
  it('lands the rows in records, and a second pull with :last_pull fetches only the new rows', async () => {
    await mySource.connection.query(
      `insert into parts (label, weight, price, blob_col, big, updated_at) values ('Gear A', 1.5, 19.90, x'00ff', 9007199254740993, utc_timestamp(3) - interval 1 hour), ('Gear B', 2, null, null, 3, utc_timestamp(3) - interval 1 hour), ('Gear C', 2.5, null, null, 4, utc_timestamp(3) - interval 1 hour)`,
    );
    const tenant = randomUUID();
    const created = await api(tenant).post('/connectors', {
      name: 'parts',
      connector_type: 'mysql',
      collection: 'my-parts',
      record_type: 'part',
      connection_config: { host: '127.0.0.1', port: 3306, user: 'root', password: '', database: mySource.database },
      query: 'select id as source_id, label, weight, price, blob_col, big, updated_at from parts where updated_at > :last_pull or :last_pull is null order by id',
      name_column: 'label',
      batch_size: 2,
    });
    expect(created.status).toBe(201);
    const first = await api(tenant).post(`/connectors/${created.body.id}/pull`);
    expect(first.body).toMatchObject({ status: 'completed', records_pulled: 3, records_uploaded: 3 });
    const stored = await stack.recordsOf(tenant, 'my-parts');
    expect(stored.map((r) => r.name).sort()).toEqual(['Gear A', 'Gear B', 'Gear C']);
    const gear = await request(stack.records.instance.app).get(`/records/${stored.find((r) => r.name === 'Gear A')!.id}`).set(stack.records.as(tenant, ['records']));
    expect(gear.body.collection_data).toMatchObject({ weight: 1.5, price: 19.9, blob_col: 'AP8=', big: '9007199254740993' });
    expect(gear.body.collection_data.updated_at).toMatch(/Z$/);

    await mySource.connection.query(`insert into parts (label, updated_at) values ('Gear D', utc_timestamp(3) + interval 1 second)`);
    const second = await api(tenant).post(`/connectors/${created.body.id}/pull`);
    expect(second.body).toMatchObject({ status: 'completed', records_pulled: 1, records_uploaded: 1 });
  });

  it('answers a failed pull for refused credentials, without the password', async () => {
    const tenant = randomUUID();
    const created = await api(tenant).post('/connectors', {
      name: 'parts',
      connector_type: 'mysql',
      collection: 'my-parts',
      record_type: 'part',
      connection_config: { host: '127.0.0.1', port: 3306, user: 'nobody_here', password: 'My5qlSecret', database: mySource.database },
      query: 'select 1',
    });
    const res = await api(tenant).post(`/connectors/${created.body.id}/pull`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('failed');
    expect(res.body.error).toMatch(/denied/i);
    expect(JSON.stringify(res.body)).not.toContain('My5qlSecret');
    expect(JSON.stringify(res.body)).not.toContain('nobody_here');
  });
});

describe('one pull at a time per connector', () => {
  const slow = () => pgConnector({ query: 'select id::text as source_id, title from items, pg_sleep(1.5)', collection: 'pg-slow' });

  it('answers 409 to a manual pull while another runs', async () => {
    const tenant = randomUUID();
    const created = await api(tenant).post('/connectors', slow());
    const running = api(tenant).post(`/connectors/${created.body.id}/pull`).then((r) => r);
    await new Promise((r) => setTimeout(r, 400));
    const second = await api(tenant).post(`/connectors/${created.body.id}/pull`);
    expect(second.status).toBe(409);
    expect((await running).body.status).toBe('completed');
    expect((await api(tenant).post(`/connectors/${created.body.id}/pull`)).status).toBe(200);
  });

  it('never runs the same connector in two service instances on one database at once', async () => {
    const replica = await stack.startConnector();
    const tenant = randomUUID();
    const created = await api(tenant).post('/connectors', slow());
    const [a, b] = await Promise.all(
      [stack.connector, replica].map((svc) => request(svc.instance.app).post(`/connectors/${created.body.id}/pull`).set(svc.as(tenant, ['admin']))),
    );
    expect([a!.status, b!.status].sort()).toEqual([200, 409]);
  });

  it('runs a due scheduled pull in one replica only, however many see it due', async () => {
    const tenant = randomUUID();
    const created = await api(tenant).post('/connectors', pgConnector({ schedule: '*/5 * * * *', collection: 'pg-scheduled', query: 'select id::text as source_id, title from items' }));
    // Created ten minutes ago: a run of its five-minute schedule has fallen due since.
    await stack.db.database.db.updateTable('connector.connectors' as never).set({ created_at: new Date(Date.now() - 10 * 60_000) } as never).where('id' as never, '=', created.body.id as never).execute();
    const replicas = [0, 1, 2].map(() => new Scheduler({ db: stack.connector.database.db, pulls: pullService(), logger: pino({ level: 'silent' }) }));
    // One moment for every tick: the clock crossing a five-minute mark between two ticks would make a new run due.
    const now = new Date();
    await Promise.all(replicas.map((r) => r.tick(now)));
    await Promise.all(replicas.map((r) => r.stop()));
    const uploads = await stack.db.database.db.selectFrom('ingestion.uploads' as never).select('id' as never).where('tenant_id' as never, '=', tenant as never).execute();
    expect(uploads).toHaveLength(1);
    expect((await stack.recordsOf(tenant, 'pg-scheduled')).length).toBeGreaterThan(0);

    // The run it claimed is done: the same moment is not due again.
    await replicas[0]!.tick(now);
    await replicas[0]!.stop();
    expect(await stack.db.database.db.selectFrom('ingestion.uploads' as never).select('id' as never).where('tenant_id' as never, '=', tenant as never).execute()).toHaveLength(1);
  });

  it('acts in a scheduled pull on the plan billing announced last, not the one the connector was made under', async () => {
    const tenant = randomUUID();
    // The tenant already holds a collection: on free (one collection) a pull into a second one is refused.
    const other = await request(stack.records.instance.app).post('/records').set(stack.records.as(tenant, ['records'])).send({ name: 'kept', collection: 'other', record_type: 'x' });
    expect(other.status).toBe(201);
    const created = await api(tenant).post('/connectors', pgConnector({ schedule: '*/5 * * * *', collection: 'pg-downgraded', query: 'select id::text as source_id, title from items' }));
    expect(created.status).toBe(201);
    await stack.connector.bus.publish([
      { topic: TOPICS.billingEvents, key: tenant, payload: { kind: 'plan_changed', tenant_id: tenant, plan: 'free', changed_at: new Date().toISOString() } },
    ]);
    await eventually(async () => {
      const plans = await stack.db.database.db.selectFrom('connector.tenant_plans' as never).select('plan' as never).where('tenant_id' as never, '=', tenant as never).execute();
      expect(plans).toEqual([{ plan: 'free' }]);
    });
    await stack.db.database.db.updateTable('connector.connectors' as never).set({ created_at: new Date(Date.now() - 10 * 60_000) } as never).where('id' as never, '=', created.body.id as never).execute();
    const scheduler = new Scheduler({ db: stack.connector.database.db, pulls: pullService(), logger: pino({ level: 'silent' }) });
    await scheduler.tick();
    await scheduler.stop();
    const uploads = await stack.db.database.db.selectFrom('ingestion.uploads' as never).select(['accepted', 'rejected'] as never).where('tenant_id' as never, '=', tenant as never).execute();
    expect(uploads).toEqual([{ accepted: 0, rejected: expect.any(Number) }]);
    expect((uploads[0] as { rejected: number }).rejected).toBeGreaterThan(0);
    expect(await stack.recordsOf(tenant, 'pg-downgraded')).toEqual([]);
  });
});
