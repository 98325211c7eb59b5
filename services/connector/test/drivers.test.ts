import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import neo4j, { type Driver } from 'neo4j-driver';
import pino from 'pino';
import request from 'supertest';
import { serviceUrl } from '@trove/platform';
import { testConfig } from '@trove/testing';
import { CredentialCipher } from '../src/domain/cipher';
import { IngestionUploader } from '../src/ingestion-upload';
import { PullService } from '../src/pull-service';
import { reencryptConnectors } from '../src/reencrypt';
import { sourceOpener } from '../src/sources';
import type { MongoClientFactory } from '../src/sources/mongodb';
import type { Neo4jDriverFactory } from '../src/sources/neo4j';
import { startMongoWireStandIn, type MongoWireStandIn } from './mongo-wire-stand-in';
import { KEY_A, KEY_B, sourceMysql, startStack, type Stack } from './stack';

let stack: Stack;
let cloud: Stack['connector'];
let mySource: Awaited<ReturnType<typeof sourceMysql>>;

beforeAll(async () => {
  stack = await startStack();
  cloud = await stack.startConnector({ DEPLOYMENT_MODE: 'cloud' });
  mySource = await sourceMysql();
  await mySource.connection.query('create table t (id int primary key, name varchar(50))');
  await mySource.connection.query("insert into t values (1, 'Local one')");
}, 60_000);
afterAll(async () => {
  await mySource?.drop();
  await stack?.stop();
});

const post = (svc: Stack['connector'], tenant: string, path: string, body?: object) => request(svc.instance.app).post(path).set(svc.as(tenant, ['admin'])).send(body);
const mysqlAt = (host: string) => ({
  name: 'm',
  connector_type: 'mysql',
  collection: 'local',
  record_type: 'row',
  connection_config: { host, port: 3306, user: 'root', password: '', database: mySource.database },
  query: 'select id as source_id, name from t',
});

function pulls(drivers: Parameters<typeof sourceOpener>[0], cloud = false): PullService {
  const config = stack.connector.ctx.config;
  return new PullService({
    db: stack.connector.database.db,
    cipher: new CredentialCipher([KEY_A]),
    open: sourceOpener(drivers),
    uploader: new IngestionUploader({ target: serviceUrl(config, 'ingestion'), internalTokenSecret: config.INTERNAL_TOKEN_SECRET, tokenTtlSeconds: 60, timeoutMs: 30_000 }),
    logger: pino({ level: 'silent' }),
    cloud,
    connectTimeoutMs: 2_000,
    statementTimeoutMs: 5_000,
  });
}

describe('the SSRF rule', () => {
  it.each(['127.0.0.1', '10.0.0.1', '169.254.169.254', '[::1]', 'fd00:ec2::254'])('refuses a connector to %s at once in cloud mode (422)', async (host) => {
    const tenant = randomUUID();
    const res = await post(cloud, tenant, '/connectors', { ...mysqlAt(host), connector_type: 'postgresql', connection_config: { dsn: `postgres://u:p@${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:5432/db` } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'connection_config'], input: '***REDACTED***' });
  });

  it('refuses, at connect time, a host name that resolves to a loopback address in cloud mode, for every type', async () => {
    const tenant = randomUUID();
    const bodies = [
      mysqlAt('localhost'),
      { ...mysqlAt('x'), connector_type: 'postgresql', connection_config: { dsn: 'postgres://postgres@localhost:5432/postgres' } },
      { ...mysqlAt('x'), connector_type: 'mongodb', connection_config: { uri: 'mongodb://localhost:27017', database: 'd', collection: 'c' }, query: '{}' },
      { ...mysqlAt('x'), connector_type: 'neo4j', connection_config: { uri: 'bolt://localhost:7687', user: 'neo4j', password: 'pw' }, query: 'RETURN 1 AS name' },
    ];
    for (const body of bodies) {
      const created = await post(cloud, tenant, '/connectors', body);
      expect(created.status).toBe(201);
      const res = await post(cloud, tenant, `/connectors/${created.body.id}/pull`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'failed', records_pulled: 0 });
      expect(res.body.error).toMatch(/localhost \(it resolves to .*\) is a loopback address/);
    }
  });

  it('allows local and private databases when self-hosted', async () => {
    const tenant = randomUUID();
    for (const host of ['10.0.0.1', '169.254.169.254']) expect((await post(stack.connector, tenant, '/connectors', mysqlAt(host))).status).toBe(201);
    const local = await post(stack.connector, tenant, '/connectors', mysqlAt('localhost'));
    const res = await post(stack.connector, tenant, `/connectors/${local.body.id}/pull`);
    expect(res.body).toMatchObject({ status: 'completed', records_pulled: 1, records_uploaded: 1 });
  });
});

describe('re-encryption under a new key', () => {
  it('rewrites every stored credential under the first key; the old key can then go', async () => {
    const old = await stack.startConnector({ CONNECTOR_ENCRYPTION_KEY: KEY_B });
    const tenant = randomUUID();
    const created = await post(old, tenant, '/connectors', mysqlAt('127.0.0.1'));
    const done = await reencryptConnectors(stack.db.database, testConfig({ CONNECTOR_ENCRYPTION_KEY: `${KEY_A},${KEY_B}` }));
    expect(done.reencrypted).toBeGreaterThanOrEqual(1);
    const row = (await stack.db.database.db.selectFrom('connector.connectors' as never).select('connection_config' as never).where('id' as never, '=', created.body.id as never).executeTakeFirstOrThrow()) as { connection_config: string };
    expect(new CredentialCipher([KEY_A]).decrypt(row.connection_config)).toMatchObject({ host: '127.0.0.1', user: 'root' });
    // The service with only the new key pulls it.
    const res = await post(stack.connector, tenant, `/connectors/${created.body.id}/pull`);
    expect(res.body.status).toBe('completed');
    expect((await reencryptConnectors(stack.db.database, testConfig({ CONNECTOR_ENCRYPTION_KEY: KEY_A }))).reencrypted).toBe(0);
  });
});

/*
 * No Neo4j server can run on this machine, and no npm package ships a Bolt server. This test stands in for the driver at
 * its boundary, as its documentation describes it (driver.session().run() as an async iterable of Records), and drives
 * everything of ours around it for real: the pull, ingestion and records. (MongoDB, below, runs the real driver
 * against a wire-protocol stand-in.)
 */
describe('Neo4j, against a driver stand-in (no real server can run here)', () => {
  beforeAll(() => {
    console.warn('connector drivers.test.ts: Neo4j pulls ran against a stand-in of its driver, NOT a real server (none can run on this machine)');
  });

  it('Neo4j [driver stand-in]: binds $last_pull as a DateTime, streams records with fetchSize batch_size, and takes node properties', async () => {
    const seen: { text?: string; params?: Record<string, unknown>; fetchSize?: number; closed: number } = { closed: 0 };
    const keys = ['name', 'part'];
    const rows = [
      ['Gear', new neo4j.types.Node(neo4j.int(1), ['Part'], { teeth: neo4j.int(20) }, '1')],
      ['Shaft', new neo4j.types.Node(neo4j.int(2), ['Part'], { teeth: neo4j.int(0) }, '2')],
    ];
    const makeDriver: Neo4jDriverFactory = (_uri, _auth, config) => {
      seen.fetchSize = config?.fetchSize;
      return {
        session: () => ({
          run: (text: string, params: Record<string, unknown>) => {
            seen.text = text;
            seen.params = params;
            return (async function* () {
              for (const r of rows) yield new neo4j.Record(keys, r);
            })();
          },
          close: async () => undefined,
        }),
        close: async () => void seen.closed++,
      } as unknown as Driver;
    };
    const tenant = randomUUID();
    const created = await post(stack.connector, tenant, '/connectors', {
      name: 'graph',
      connector_type: 'neo4j',
      collection: 'graph-parts',
      record_type: 'part',
      connection_config: { uri: 'neo4j://graph.example.com:7687', user: 'neo4j', password: 'pw' },
      query: 'MATCH (p:Part) WHERE p.updated > :last_pull RETURN p.name AS name, p AS part',
      batch_size: 1,
    });
    const result = await pulls({ neo4j: makeDriver }).pull(tenant, created.body.id, { tenantId: tenant, principal: 'test', scopes: ['admin'] });
    expect(result).toMatchObject({ status: 'completed', records_pulled: 2, records_uploaded: 2 });
    expect(seen.text).toBe('MATCH (p:Part) WHERE p.updated > $last_pull RETURN p.name AS name, p AS part');
    expect(neo4j.isDateTime(seen.params!.last_pull)).toBe(true);
    expect(String(seen.params!.last_pull)).toMatch(/^1970-01-01T00:00:00/);
    expect(seen.fetchSize).toBe(1);
    expect(seen.closed).toBe(1);
    const stored = await stack.recordsOf(tenant, 'graph-parts');
    const gear = await request(stack.records.instance.app).get(`/records/${stored.find((r) => r.name === 'Gear')!.id}`).set(stack.records.as(tenant, ['records']));
    expect(gear.body.collection_data).toEqual({ part: { teeth: 20 } });
  });
});

describe('MongoDB through the real driver, against a wire-protocol stand-in (no MongoDB server can run here)', () => {
  let mongo: MongoWireStandIn;
  beforeAll(async () => {
    console.warn('connector drivers.test.ts: MongoDB pulls ran the real mongodb driver against a wire-protocol stand-in (test/mongo-wire-stand-in.ts), NOT a real server (none can run on this machine)');
    mongo = await startMongoWireStandIn('shop', 'products');
  });
  afterAll(() => mongo?.close());

  it('reads in batches of batch_size with ":last_pull" sent as a date, and a second pull reads only newer documents', async () => {
    const { BSON } = await import('mongodb');
    const earlier = new Date(Date.now() - 60_000);
    const titles = ['Cordless drill', 'Torque wrench', 'Spirit level', 'Hex key set', 'Tape measure'];
    mongo.documents.push(...titles.map((title, i) => ({ _id: new BSON.ObjectId(), title, price: BSON.Decimal128.fromString(`${10 + i}.90`), stock: BSON.Long.fromNumber(i), updated: earlier })));
    const tenant = randomUUID();
    const created = await post(stack.connector, tenant, '/connectors', {
      name: 'mongo shop',
      connector_type: 'mongodb',
      collection: 'mongo-products',
      record_type: 'product',
      connection_config: { uri: mongo.uri, database: 'shop', collection: 'products' },
      query: '{"updated": {"$gt": ":last_pull"}}',
      name_column: 'title',
      batch_size: 2,
    });
    expect(created.status).toBe(201);

    const first = await post(stack.connector, tenant, `/connectors/${created.body.id}/pull`);
    expect(first.body).toMatchObject({ status: 'completed', records_pulled: 5, records_uploaded: 5 });
    const [find, ...getMores] = mongo.commands.splice(0);
    expect(find).toMatchObject({ find: 'products', $db: 'shop', filter: { updated: { $gt: new Date(0) } }, batchSize: 2 });
    expect(getMores.map((c) => [Object.keys(c)[0], c.batchSize])).toEqual([
      ['getMore', 2],
      ['getMore', 2],
    ]);
    expect(mongo.openCursors()).toBe(0);
    const stored = await stack.recordsOf(tenant, 'mongo-products');
    expect(stored.map((r) => r.name).sort()).toEqual([...titles].sort());
    const drill = await request(stack.records.instance.app).get(`/records/${stored.find((r) => r.name === 'Cordless drill')!.id}`).set(stack.records.as(tenant, ['records']));
    expect(drill.body.collection_data).toMatchObject({ price: 10.9, stock: 0, updated: earlier.toISOString(), _id: expect.stringMatching(/^[0-9a-f]{24}$/) });

    mongo.documents.push({ _id: new BSON.ObjectId(), title: 'Stud finder', updated: new Date() });
    const second = await post(stack.connector, tenant, `/connectors/${created.body.id}/pull`);
    expect(second.body).toMatchObject({ status: 'completed', records_pulled: 1, records_uploaded: 1 });
    const lastPull = (mongo.commands.find((c) => 'find' in c)!.filter as { updated: { $gt: Date } }).updated.$gt;
    expect(lastPull.getTime()).toBeGreaterThan(earlier.getTime());
    expect(lastPull.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('answers a failed pull when the database refuses the query, and when it refuses the credentials, naming none', async () => {
    const tenant = randomUUID();
    const connector = (uri: string, collection: string) =>
      post(stack.connector, tenant, '/connectors', {
        name: collection,
        connector_type: 'mongodb',
        collection: 'mongo-refused',
        record_type: 'product',
        connection_config: { uri, database: 'shop', collection },
        query: '{}',
      });
    const missing = await connector(mongo.uri, 'elsewhere');
    const refused = await post(stack.connector, tenant, `/connectors/${missing.body.id}/pull`);
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({ status: 'failed', records_pulled: 0, error: expect.stringContaining('elsewhere') });

    const withPassword = await connector(mongo.uri.replace('mongodb://', 'mongodb://reader:S3cret-pw@'), 'products');
    const unauthorised = await post(stack.connector, tenant, `/connectors/${withPassword.body.id}/pull`);
    expect(unauthorised.status).toBe(200);
    expect(unauthorised.body.status).toBe('failed');
    expect(JSON.stringify(unauthorised.body)).not.toContain('S3cret-pw');
    expect(JSON.stringify(unauthorised.body)).not.toContain('reader:');
  });
});

/*
 * Cloud mode: a MongoDB server may announce replica-set members at literal private addresses, which Node connects to
 * without calling `lookup`. The URI names a public address; the test's driver maker routes it to a stand-in on
 * loopback (as the network would route it to the server), and a second stand-in at a loopback address plays the
 * announced member, counting any connection it gets.
 */
describe('MongoDB in cloud mode: only checked addresses are connected to', () => {
  const PUBLIC = '93.184.215.14:27017';
  const stands: MongoWireStandIn[] = [];
  afterEach(async () => {
    await Promise.all(stands.splice(0).map((s) => s.close()));
  });
  /** A member of replica set rs0 whose other member is `other`; the primary unless `primary` names another. */
  const member = async (self: (address: string) => string, other: string, primary?: string) => {
    const s = await startMongoWireStandIn('shop', 'products', (address) => {
      const me = self(address);
      const isPrimary = (primary ?? me) === me;
      return { setName: 'rs0', hosts: [me, other], me, primary: primary ?? me, isWritablePrimary: isPrimary, ismaster: isPrimary, secondary: !isPrimary };
    });
    stands.push(s);
    return s;
  };
  const routedTo = (seed: MongoWireStandIn): MongoClientFactory => (uri, options) => new MongoClient(uri.replace(PUBLIC, seed.address), options);
  const cloudPull = async (makeClient: MongoClientFactory, uri = `mongodb://${PUBLIC}/?replicaSet=rs0`) => {
    const tenant = randomUUID();
    const body = { ...mysqlAt('x'), connector_type: 'mongodb', connection_config: { uri, database: 'shop', collection: 'products' }, query: '{}', name_column: 'title' };
    const created = await post(stack.connector, tenant, '/connectors', body);
    expect(created.status).toBe(201);
    return pulls({ mongodb: makeClient }, true).pull(tenant, created.body.id, { tenantId: tenant, principal: 'test', scopes: ['admin'] });
  };

  it('fails the pull naming the address when a secondary announces its primary at a loopback address, and connects to nothing there', async () => {
    const internal = await member((address) => address, PUBLIC);
    internal.documents.push({ title: 'Internal secret' });
    const seed = await member(() => PUBLIC, internal.address, internal.address);
    const result = await cloudPull(routedTo(seed));
    expect(result).toMatchObject({ status: 'failed', records_pulled: 0 });
    expect(result.error).toMatch(/connector host 127\.0\.0\.1 is a loopback address/);
    expect(internal.connections()).toBe(0);
    expect(seed.connections()).toBeGreaterThan(0);
  });

  it('reads from a primary that announces a member at a loopback address, without connecting to the member', async () => {
    const internal = await member((address) => address, PUBLIC, PUBLIC);
    const seed = await member(() => PUBLIC, internal.address);
    seed.documents.push({ title: 'Public bolt' });
    const result = await cloudPull(routedTo(seed));
    expect(result).toMatchObject({ status: 'completed', records_pulled: 1 });
    expect(internal.connections()).toBe(0);
  });

  it('fails a pull from a mongodb+srv:// URI, whose members come from DNS and the servers', async () => {
    const result = await cloudPull(() => {
      throw new Error('no client may be made');
    }, 'mongodb+srv://cluster0.example.com/?retryWrites=true');
    expect(result).toMatchObject({ status: 'failed', records_pulled: 0 });
    expect(result.error).toMatch(/mongodb\+srv:\/\/ URI cannot be used from Trove cloud/);
  });
});
