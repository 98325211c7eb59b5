import { createServiceApp, identityOf, type ServiceName } from '@trove/platform';
import type { ServiceModule } from '@trove/runtime';
import { startTestSystem, type TestSystem } from './system';

/** Services whose start() ran, in order. */
const started: ServiceName[] = [];

/**
 * A stand-in module: GET /whoami answers its name and its caller; GET /upstreams asks each service it depends on for
 * theirs through the context's clients, as a real module calls the others.
 */
function standIn(name: ServiceName, dependsOn: ServiceName[] = []): ServiceModule {
  return {
    name,
    dependsOn,
    async init(ctx) {
      const app = createServiceApp({
        name,
        logger: ctx.logger,
        internalTokenSecret: ctx.config.INTERNAL_TOKEN_SECRET,
        routes: (router) => {
          router.get('/whoami', (req, res) => {
            res.json({ service: name, caller: identityOf(req).caller ?? null });
          });
          router.get('/upstreams', async (req, res) => {
            const answers: Record<string, unknown> = {};
            for (const dep of dependsOn) {
              const client = ctx.client(dep);
              try {
                answers[dep] = (await client.request({ method: 'GET', path: '/whoami', identity: identityOf(req) })).body;
              } finally {
                client.shutdown();
              }
            }
            res.json(answers);
          });
        },
      });
      return { app, start: async () => void started.push(name) };
    },
  };
}

const records = standIn('records');
const search = standIn('search');
const open = standIn('open', ['records', 'search']);

describe('a test system with a service on a port of its own', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    started.length = 0;
    sys = await startTestSystem([open, search, records], { listen: ['records'], configOf: { open: { OPEN_SEARCH_LIMIT_PER_MINUTE: '7' } }, start: ['records', 'open'] });
  });
  afterAll(() => sys?.stop());

  it('starts the modules in dependency order, and the background work of those named in start only', () => {
    expect(started).toEqual(['records', 'open']);
  });

  it('has the others call a listening service over HTTP at its URL, and a service without a port in process', async () => {
    const ctx = sys.service('open').ctx;
    expect(ctx.config.RECORDS_URL).toBe(sys.url('records'));
    expect(ctx.local('records')).toBeUndefined();
    expect(ctx.local('search')).toBeDefined();
    expect(() => sys.url('search')).toThrow(/no port/);
    const res = await sys.client('open', 'tenant-1', ['search']).get('/upstreams');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ records: { service: 'records', caller: 'open' }, search: { service: 'search', caller: 'open' } });
  });

  it("gives each service the system's configuration and its own, and records the wait for search's acknowledgement", () => {
    expect(sys.service('open').ctx.config.OPEN_SEARCH_LIMIT_PER_MINUTE).toBe(7);
    expect(sys.service('search').ctx.config.OPEN_SEARCH_LIMIT_PER_MINUTE).not.toBe(7);
    expect(sys.service('records').ctx.config.INDEXING_WAIT_MS).toBe(5000);
    expect(sys.gatewayUrl).toBeUndefined();
  });

  it('answers 503 at the port of a stopped service, and serves a restarted one at the same port', async () => {
    const url = sys.url('records');
    await sys.service('records').stop();
    expect(() => sys.service('records')).toThrow(/not running/);
    expect((await fetch(`${url}/health`)).status).toBe(503);
    const restarted = await sys.restart('records', { start: false });
    expect(sys.service('records')).toBe(restarted);
    expect(sys.url('records')).toBe(url);
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'ok', service: 'records' });
  });

  it('starts a replica with an event bus of its own and the configuration of its service, over which its own', async () => {
    const replica = await sys.replica(open, { OPEN_LOOKUP_LIMIT_PER_MINUTE: '3' });
    expect(replica.bus).not.toBe(sys.bus);
    expect(replica.ctx.config).toMatchObject({ OPEN_SEARCH_LIMIT_PER_MINUTE: 7, OPEN_LOOKUP_LIMIT_PER_MINUTE: 3, RECORDS_URL: sys.url('records') });
  });

  it("starts a replica without its service's configuration from the system when told to", async () => {
    const replica = await sys.replica(open, { OPEN_LOOKUP_LIMIT_PER_MINUTE: '3' }, { configOf: false });
    expect(replica.ctx.config).toMatchObject({ OPEN_LOOKUP_LIMIT_PER_MINUTE: 3, RECORDS_URL: sys.url('records') });
    expect(replica.ctx.config.OPEN_SEARCH_LIMIT_PER_MINUTE).not.toBe(7);
  });
});

describe('a test system without search', () => {
  it('lets records answer writes at once, as a service tested alone does', async () => {
    const sys = await startTestSystem([records]);
    try {
      expect(sys.service('records').ctx.config.INDEXING_WAIT_MS).toBe(0);
    } finally {
      await sys.stop();
    }
  });

  it('refuses options naming a service it does not start', async () => {
    await expect(startTestSystem([records], { listen: ['search'] })).rejects.toThrow('search not among the services started (records)');
  });
});
