import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { MongoClient, type MongoClientOptions } from 'mongodb';
import neo4j, { type Driver } from 'neo4j-driver';
import pino from 'pino';
import request from 'supertest';
import { ServiceClient, serviceUrl } from '@trove/platform';
import { testConfig } from '@trove/testing';
import { CredentialCipher } from '../src/domain/cipher';
import type { DnsResolver } from '../src/net/address-guard';
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
    ingestion: new ServiceClient({ service: 'ingestion', caller: 'connector', target: serviceUrl(config, 'ingestion'), internalTokenSecret: config.INTERNAL_TOKEN_SECRET }),
    uploadTimeoutMs: 30_000,
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
 * without calling `lookup`, and a mongodb+srv:// URI's hosts come from DNS. The URI names a public address (or DNS
 * answers public addresses); the test's driver maker routes it to a stand-in on loopback (as the network would route it
 * to the server), and a second stand-in at a loopback address plays the announced member, counting any connection it
 * gets.
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
  /** What a driver maker was handed, call by call. */
  type Made = { uri: string; options: MongoClientOptions }[];
  /** A driver maker that routes each host:port (a public address or name) to its stand-in, noting what it was handed. */
  const routed =
    (routes: Record<string, MongoWireStandIn>, made: Made = []): MongoClientFactory =>
    (uri, options) => {
      made.push({ uri, options });
      return new MongoClient(Object.entries(routes).reduce((to, [from, stand]) => to.replace(from, stand.address), uri), options);
    };
  const mongoPull = async (drivers: Parameters<typeof sourceOpener>[0], uri: string, cloudMode = true) => {
    const tenant = randomUUID();
    const body = { ...mysqlAt('x'), connector_type: 'mongodb', connection_config: { uri, database: 'shop', collection: 'products' }, query: '{}', name_column: 'title' };
    const created = await post(stack.connector, tenant, '/connectors', body);
    expect(created.status).toBe(201);
    return pulls(drivers, cloudMode).pull(tenant, created.body.id, { tenantId: tenant, principal: 'test', scopes: ['admin'] });
  };
  const cloudPull = (makeClient: MongoClientFactory, uri = `mongodb://${PUBLIC}/?replicaSet=rs0`) => mongoPull({ mongodb: makeClient }, uri);
  it('fails the pull naming the address when a secondary announces its primary at a loopback address, and connects to nothing there', async () => {
    const internal = await member((address) => address, PUBLIC);
    internal.documents.push({ title: 'Internal secret' });
    const seed = await member(() => PUBLIC, internal.address, internal.address);
    const result = await cloudPull(routed({ [PUBLIC]: seed }));
    expect(result).toMatchObject({ status: 'failed', records_pulled: 0, error: expect.stringMatching(/connector host 127\.0\.0\.1 is a loopback address/) });
    expect(internal.connections()).toBe(0);
    expect(seed.connections()).toBeGreaterThan(0);
  });

  it('reads from a primary that announces a member at a loopback address, without connecting to the member', async () => {
    const internal = await member((address) => address, PUBLIC, PUBLIC);
    const seed = await member(() => PUBLIC, internal.address);
    seed.documents.push({ title: 'Public bolt' });
    const result = await cloudPull(routed({ [PUBLIC]: seed }));
    expect(result).toMatchObject({ status: 'completed', records_pulled: 1 });
    expect(internal.connections()).toBe(0);
  });

  /*
   * mongodb+srv:// URIs: the connector resolves the SRV and TXT records itself and checks every target before the
   * driver connects. DNS is a third party, so the test answers it (dnsStandIn); the driver maker routes the targets'
   * names to stand-ins, as the network would route them to the servers.
   */
  const CLUSTER = 'cluster0.example.com';
  const SHARD_0 = `shard-00.${CLUSTER}:27017`;
  const SHARD_1 = `shard-01.${CLUSTER}:27017`;
  /** DNS as the test answers it: CLUSTER's SRV targets (port 27017) and TXT records, and addresses by name; it notes every query. */
  const dnsStandIn = (records: { targets: string[]; txt?: string[][]; addresses?: Record<string, string> }) => {
    const queries: string[] = [];
    const answer = <T>(query: string, value: T | undefined): Promise<T> => {
      queries.push(query);
      return value === undefined ? Promise.reject(Object.assign(new Error(`${query} ENOTFOUND`), { code: 'ENOTFOUND' })) : Promise.resolve(value);
    };
    const dns: DnsResolver = {
      lookup: (host) => {
        const address = records.addresses?.[host];
        return answer(`A/AAAA ${host}`, address === undefined ? undefined : [{ address, family: isIP(address) }]);
      },
      resolveSrv: (name) => answer(`SRV ${name}`, name === `_mongodb._tcp.${CLUSTER}` ? records.targets.map((target) => ({ name: target, port: 27017, priority: 0, weight: 5 })) : undefined),
      resolveTxt: (name) => answer(`TXT ${name}`, name === CLUSTER ? records.txt : undefined),
    };
    return { dns, queries };
  };
  const publicShards = { [`shard-00.${CLUSTER}`]: '93.184.215.14', [`shard-01.${CLUSTER}`]: '93.184.215.15' };
  /** A driver maker that notes the options the driver parsed from what it was handed, then fails: TLS cannot reach a stand-in. */
  const parsing = (parsed: MongoClient['options'][]): MongoClientFactory => (uri, options) => {
    parsed.push(new MongoClient(uri, options).options);
    throw new Error('not connected: the stand-in speaks no TLS');
  };

  it('pulls from a mongodb+srv:// URI through its SRV targets, each resolved and checked first, with the TXT record replicaSet', async () => {
    const seed = await member(() => SHARD_0, SHARD_1);
    seed.documents.push({ title: 'Atlas anvil' });
    const { dns, queries } = dnsStandIn({ targets: [`shard-00.${CLUSTER}.`, `shard-01.${CLUSTER}`], txt: [['replicaSet=rs0&', 'authSource=admin']], addresses: publicShards });
    const made: Made = [];
    // tls=false: the stand-in speaks no TLS (the default, on, is the next test's).
    const result = await mongoPull({ mongodb: routed({ [SHARD_0]: seed }, made), dns }, `mongodb+srv://${CLUSTER}/?tls=false`);
    expect(result).toMatchObject({ status: 'completed', records_pulled: 1 });
    expect(made.map((m) => m.uri)).toEqual([`mongodb://${SHARD_0}/?tls=false&replicaSet=rs0&authSource=admin`]);
    expect(made[0]!.options.directConnection).toBe(true);
    expect(queries).toEqual([`SRV _mongodb._tcp.${CLUSTER}`, `TXT ${CLUSTER}`, `A/AAAA shard-00.${CLUSTER}`, `A/AAAA shard-01.${CLUSTER}`]);
  });

  it('applies the TXT record options under the URI options, and turns TLS on unless the URI turns it off', async () => {
    const { dns } = dnsStandIn({ targets: [`shard-00.${CLUSTER}`], txt: [['replicaSet=rs0&authSource=admin']], addresses: publicShards });
    const parsed: MongoClient['options'][] = [];
    for (const uri of [`mongodb+srv://reader:pw@${CLUSTER}/shop`, `mongodb+srv://reader:pw@${CLUSTER}/shop?authSource=users&replicaSet=rs1&ssl=false`]) {
      expect(await mongoPull({ mongodb: parsing(parsed), dns }, uri)).toMatchObject({ status: 'failed', error: expect.stringContaining('speaks no TLS') });
    }
    expect(parsed.map((o) => ({ tls: o.tls, replicaSet: o.replicaSet, authSource: o.credentials?.source, hosts: o.hosts.map(String) }))).toEqual([
      { tls: true, replicaSet: 'rs0', authSource: 'admin', hosts: [SHARD_0] },
      { tls: false, replicaSet: 'rs1', authSource: 'users', hosts: [SHARD_0] },
    ]);
  });

  it.each(['db.attacker.example.net', 'shard-00.cluster0.example.com.attacker.net', 'example.com', 'shard-00.notexample.com'])(
    'refuses a mongodb+srv:// URI whose SRV record names %s, outside the host domain, and resolves or connects to none of its targets',
    async (outside) => {
      const { dns, queries } = dnsStandIn({ targets: [`shard-00.${CLUSTER}`, outside], addresses: { ...publicShards, [outside]: '93.184.215.16' } });
      const made: Made = [];
      const result = await mongoPull({ mongodb: routed({}, made), dns }, `mongodb+srv://${CLUSTER}/`);
      expect(result).toMatchObject({ status: 'failed', records_pulled: 0, error: expect.stringContaining(`names ${outside}, which is not within example.com`) });
      expect(queries.filter((q) => q.startsWith('A/AAAA'))).toEqual([]);
      expect(made).toEqual([]);
    },
  );

  it('fails the pull with the address guard error when an SRV target resolves to a loopback address, and connects to no target', async () => {
    const internal = await member((address) => address, SHARD_0);
    internal.documents.push({ title: 'Internal secret' });
    const seed = await member(() => SHARD_0, SHARD_1);
    const { dns } = dnsStandIn({ targets: [`shard-00.${CLUSTER}`, `shard-01.${CLUSTER}`], addresses: { ...publicShards, [`shard-01.${CLUSTER}`]: '127.0.0.1' } });
    const result = await mongoPull({ mongodb: routed({ [SHARD_0]: seed, [SHARD_1]: internal }), dns }, `mongodb+srv://${CLUSTER}/?tls=false`);
    expect(result).toMatchObject({
      status: 'failed',
      records_pulled: 0,
      error: expect.stringMatching(/connector host shard-01\.cluster0\.example\.com \(it resolves to 127\.0\.0\.1\) is a loopback address/),
    });
    expect(internal.connections()).toBe(0);
    expect(seed.connections()).toBe(0);
  });

  it.each([
    [[['replicaSet=rs0&tls=false']], 'sets tls: it may set only authSource, replicaSet, loadBalanced'],
    [[['proxyHost=10.0.0.1']], 'sets proxyHost: it may set only authSource, replicaSet, loadBalanced'],
    [[['replicaSet=rs0'], ['authSource=admin']], `${CLUSTER} has more than one TXT record`],
  ])('refuses a mongodb+srv:// URI whose TXT records are %j, before any connection', async (txt, error) => {
    const { dns } = dnsStandIn({ targets: [`shard-00.${CLUSTER}`], txt, addresses: publicShards });
    const made: Made = [];
    const result = await mongoPull({ mongodb: routed({}, made), dns }, `mongodb+srv://${CLUSTER}/`);
    expect(result).toMatchObject({ status: 'failed', records_pulled: 0, error: expect.stringContaining(error) });
    expect(made).toEqual([]);
  });

  it('fails the pull within the connect timeout when DNS never answers the SRV query, connecting to nothing', async () => {
    const { dns } = dnsStandIn({ targets: [`shard-00.${CLUSTER}`], addresses: publicShards });
    const silent: DnsResolver = { ...dns, resolveSrv: () => new Promise(() => undefined) };
    const made: Made = [];
    const started = Date.now();
    const result = await mongoPull({ mongodb: routed({}, made), dns: silent }, `mongodb+srv://${CLUSTER}/`);
    expect(result).toMatchObject({ status: 'failed', records_pulled: 0, error: expect.stringContaining(`DNS did not answer for _mongodb._tcp.${CLUSTER} within 2000 ms`) });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(made).toEqual([]);
  });

  it.each([`mongodb+srv://${CLUSTER}:27017/`, `mongodb+srv://${CLUSTER},cluster1.example.com/`])('refuses %s (a port or a second host) without querying DNS', async (uri) => {
    const { dns, queries } = dnsStandIn({ targets: [`shard-00.${CLUSTER}`], addresses: publicShards });
    const result = await mongoPull({ mongodb: routed({}), dns }, uri);
    expect(result).toMatchObject({ status: 'failed', error: expect.stringContaining('names one host name, without a port') });
    expect(queries).toEqual([]);
  });

  it('hands a mongodb+srv:// URI to the driver unresolved when self-hosted', async () => {
    const { dns, queries } = dnsStandIn({ targets: [`shard-00.${CLUSTER}`] });
    const made: Made = [];
    const makeClient: MongoClientFactory = (uri, options) => {
      made.push({ uri, options });
      throw new Error('not connected');
    };
    await mongoPull({ mongodb: makeClient, dns }, `mongodb+srv://${CLUSTER}/?retryWrites=true`, false);
    expect(made.map((m) => [m.uri, m.options.directConnection])).toEqual([[`mongodb+srv://${CLUSTER}/?retryWrites=true`, undefined]]);
    expect(queries).toEqual([]);
  });
});
