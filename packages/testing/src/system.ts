import type { RequestListener } from 'node:http';
import { createEventBus, type EventBus } from '@trove/bus';
import { createLogger, listen, type Config, type RunningServer, type Scope, type ServiceName } from '@trove/platform';
import { orderModules, serviceContext, type ServiceModule } from '@trove/runtime';
import { testClient, type TestClient, type TestClientOptions } from './client';
import { createTestDatabase, type TestDatabase } from './database';
import { identityHeaders, testConfig, type TestService } from './service';

export interface TestSystemOptions {
  /** Configuration of every service of the system, over testConfig's. */
  config?: Record<string, string>;
  /** Configuration of one service, over `config`. */
  configOf?: Partial<Record<ServiceName, Record<string, string>>>;
  /**
   * Services that listen on a free port of 127.0.0.1, as a process of their own would: the system's other services
   * call them there over HTTP (their <NAME>_URL is set), and `url(name)` answers it. The gateway always listens. The
   * others answer the system's services in process only (as under `--target=all`), and tests through their apps.
   */
  listen?: readonly ServiceName[];
  /** Which services start their consumers and timers (`instance.start()`): all (the default), none, or those named. */
  start?: boolean | readonly ServiceName[];
}

export interface TestSystem {
  /** The fresh test database every service of the system runs on; stop() drops it. */
  db: TestDatabase;
  /** The event bus the system's services share. */
  bus: EventBus;
  /** The running instance of one of the system's services (restart() replaces it). */
  service(name: ServiceName): TestService;
  /** Base URL of a service that listens: the gateway, and those named in `listen`. */
  url(name: ServiceName): string;
  /** The gateway's base URL, when it is among the services. */
  gatewayUrl: string | undefined;
  /** Requests to one of the system's services as one tenant (testClient); they reach the instance of the moment. */
  client(name: ServiceName, tenantId: string, scopes: Scope[], opts?: TestClientOptions): TestClient;
  /** Stops a service and starts a new instance in its place: same database, bus, configuration and port. */
  restart(name: ServiceName, opts?: { start?: boolean }): Promise<TestService>;
  /**
   * Another instance of a module, as another process running it would be (an event bus of its own, no port), on the
   * system's database with the configuration the system gives that service, over which `config`. It calls the
   * system's services as the system's own instance does. stop() stops it first. With `configOf: false` it leaves out
   * what `configOf` gives the service: the system's configuration (its secrets, the listening services' URLs and
   * `config`) and its own only.
   */
  replica(module: ServiceModule, config?: Record<string, string>, opts?: { configOf?: boolean }): Promise<TestService>;
  /** Stops the replicas, then each service in reverse dependency order (its port drained first), the bus, and drops the database. */
  stop(): Promise<void>;
}

/**
 * Starts service modules together as the runtime's startSystem does (in dependency order, one database and one event
 * bus, each calling the others in process), on a fresh test database, with the test configuration (testConfig) and
 * what tests need besides: configuration per service, ports for the services a test wants reached over HTTP (see
 * `listen`), background work left off, restarts and replicas. Records waits for search's acknowledgement of a write
 * (INDEXING_WAIT_MS 5 s) when search is among the services, and answers at once when it is not.
 */
export async function startTestSystem(modules: ServiceModule[], options: TestSystemOptions = {}): Promise<TestSystem> {
  const names = modules.map((m) => m.name);
  const start = options.start ?? true;
  const named = [...(options.listen ?? []), ...(Object.keys(options.configOf ?? {}) as ServiceName[]), ...(typeof start === 'boolean' ? [] : start)];
  const strangers = named.filter((name) => !names.includes(name));
  if (strangers.length > 0) throw new Error(`startTestSystem: ${[...new Set(strangers)].join(', ')} not among the services started (${names.join(', ')})`);
  const startsByDefault = (name: ServiceName) => (typeof start === 'boolean' ? start : start.includes(name));
  const listening = names.filter((name) => name === 'gateway' || options.listen?.includes(name));

  // The secrets the processes of one system share: a service configured for production still verifies the others' tokens.
  const shared = testConfig(options.config);
  const secrets = { INTERNAL_TOKEN_SECRET: shared.INTERNAL_TOKEN_SECRET, ...(shared.JWT_SECRET ? { JWT_SECRET: shared.JWT_SECRET } : {}) };
  const db = await createTestDatabase();
  const running = new Map<ServiceName, TestService>();
  const servers = new Map<ServiceName, RunningServer>();
  const replicas: TestService[] = [];
  const started: ServiceName[] = [];
  let bus: EventBus | undefined;

  const urlOf = (name: ServiceName) => {
    const server = servers.get(name);
    if (!server) throw new Error(`${name} has no port in this test system (startTestSystem's listen)`);
    return `http://127.0.0.1:${server.port}`;
  };
  const configFor = (name: ServiceName, extra: Record<string, string> = {}, own = true): Config =>
    testConfig({
      ...secrets,
      ...(names.includes('search') ? { INDEXING_WAIT_MS: '5000' } : {}),
      ...Object.fromEntries(listening.filter((n) => n !== name && n !== 'gateway').map((n) => [`${n.toUpperCase()}_URL`, urlOf(n)])),
      ...options.config,
      ...(own ? options.configOf?.[name] : {}),
      ...extra,
    });
  const local = (service: ServiceName) => (names.includes(service) && !listening.includes(service) ? () => running.get(service)?.instance.app : undefined);
  /** A port answered by the service's instance of the moment; 503 while it is stopped. */
  const forward =
    (name: ServiceName): RequestListener =>
    (req, res) => {
      const app = running.get(name)?.instance.app;
      if (app) return void app(req, res);
      res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: `${name} is not running` }));
    };

  const launch = async (module: ServiceModule, config: Config, on: EventBus, onStop: () => Promise<void>): Promise<TestService> => {
    const ctx = serviceContext(module.name, { config, logger: createLogger({ level: config.LOG_LEVEL, name: module.name }), database: db.database, bus: on, local });
    const instance = await module.init(ctx);
    let stopping: Promise<void> | undefined;
    const svc: TestService = {
      instance,
      ctx,
      database: db.database,
      bus: on,
      as: identityHeaders(config),
      stop: () => (stopping ??= (async () => {
        if (running.get(module.name) === svc) running.delete(module.name);
        await instance.stop?.();
        await onStop();
      })()),
    };
    return svc;
  };
  const startService = async (module: ServiceModule, begin: boolean): Promise<TestService> => {
    const svc = await launch(module, configFor(module.name), bus!, async () => undefined);
    running.set(module.name, svc);
    if (begin) await svc.instance.start?.();
    return svc;
  };

  const stop = async () => {
    for (const replica of replicas.splice(0).reverse()) await replica.stop();
    for (const name of started.splice(0).reverse()) {
      await servers.get(name)?.close(1_000);
      servers.delete(name);
      await running.get(name)?.stop();
    }
    for (const server of servers.values()) await server.close(1_000);
    servers.clear();
    await bus?.close();
    await db.drop();
  };

  try {
    bus = await createEventBus({ database: db.database, logger: createLogger({ level: shared.LOG_LEVEL, name: 'events' }), kafkaBrokers: shared.KAFKA_BROKERS });
    await bus.start();
    for (const name of listening) servers.set(name, await listen(forward(name), 0, '127.0.0.1'));
    for (const module of orderModules(modules)) {
      started.push(module.name);
      await startService(module, startsByDefault(module.name));
    }
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }

  const service = (name: ServiceName) => {
    const svc = running.get(name);
    if (!svc) throw new Error(`${name} is not running in this test system`);
    return svc;
  };
  let stopped: Promise<void> | undefined;
  return {
    db,
    bus,
    service,
    url: urlOf,
    gatewayUrl: names.includes('gateway') ? urlOf('gateway') : undefined,
    client: (name, tenantId, scopes, opts) => testClient(() => service(name), tenantId, scopes, opts),
    async restart(name, opts = {}) {
      const module = modules.find((m) => m.name === name);
      if (!module) throw new Error(`${name} is not among this test system's services`);
      await running.get(name)?.stop();
      return startService(module, opts.start ?? startsByDefault(name));
    },
    async replica(module, config = {}, opts = {}) {
      const cfg = configFor(module.name, config, opts.configOf ?? true);
      const own = await createEventBus({ database: db.database, logger: createLogger({ level: cfg.LOG_LEVEL, name: 'events' }), kafkaBrokers: cfg.KAFKA_BROKERS });
      await own.start();
      let svc: TestService;
      try {
        svc = await launch(module, cfg, own, () => own.close());
      } catch (err) {
        await own.close();
        throw err;
      }
      replicas.push(svc);
      await svc.instance.start?.();
      return svc;
    },
    stop: () => (stopped ??= stop()),
  };
}
