import type { Express } from 'express';
import type { EventBus } from '@trove/bus';
import type { Database } from '@trove/db';
import { ServiceClient, serviceRegistry, serviceUrl, type Config, type Logger, type ReadinessCheck, type ServiceName } from '@trove/platform';
import type { Registry } from 'prom-client';
import { withConsumerLag } from './consumer-lag';

/** What the composition root hands every service: validated configuration and the ports it chose. */
export interface ServiceContext {
  config: Config;
  logger: Logger;
  /** The service's database; its tables live in the service's own schema. */
  database: Database;
  /** The event bus; the lag of each consumer group the service subscribes is reported in `registry`. */
  bus: EventBus;
  /**
   * The service's metrics registry (every series labelled with the service), served by every /metrics of the process:
   * its clients' circuit breakers and its consumer groups' lag report here; the service adds its own metrics to it
   * (createMetrics(name, registry)).
   */
  registry: Registry;
  /**
   * A new client for another service's internal API, signed as this service (the caller its /internal routes require)
   * with INTERNAL_TOKEN_SECRET for INTERNAL_TOKEN_TTL_SECONDS, each call timed out after UPSTREAM_TIMEOUT_MS: in
   * process when `local(service)` has it, else at serviceUrl(config, service). The module owns it: it calls
   * `shutdown()` when it stops.
   */
  client(service: ServiceName): ServiceClient;
  /**
   * The app of `service` when it runs in this process, looked up at each call (undefined until that module has been
   * initialised); undefined when it runs elsewhere and is reached over HTTP. Backstage's backend prefers a plugin in
   * the same process the same way.
   */
  local(service: ServiceName): LocalExpress | undefined;
  /** The readiness checks of what the composition root gave the service (its database and the event bus), for /health/ready. */
  readiness: { database: ReadinessCheck; events: ReadinessCheck };
}

/** A service's app in this process, once its module has been initialised. */
export type LocalExpress = () => Express | undefined;

/**
 * The context of the module `name`, whose clients sign their calls as that service. Without `local`, every other
 * service is reached over HTTP (a module tested alone).
 */
export function serviceContext(
  name: ServiceName,
  parts: Omit<ServiceContext, 'client' | 'readiness' | 'local' | 'registry'> & { local?: ServiceContext['local']; registry?: Registry },
): ServiceContext {
  const { config, database } = parts;
  const local = parts.local ?? (() => undefined);
  const registry = parts.registry ?? serviceRegistry(name);
  const bus = withConsumerLag(parts.bus, registry);
  return {
    ...parts,
    bus,
    registry,
    local,
    readiness: { database: () => database.ping(), events: () => bus.ping() },
    client: (service) =>
      new ServiceClient({
        service,
        caller: name,
        target: local(service) ?? serviceUrl(config, service),
        internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
        tokenTtlSeconds: config.INTERNAL_TOKEN_TTL_SECONDS,
        timeoutMs: config.UPSTREAM_TIMEOUT_MS,
        registry,
      }),
  };
}

/** A service once initialised: its HTTP app, and the background work that starts after it listens. */
export interface ServiceInstance {
  app: Express;
  /** Starts consumers and timers; called after the HTTP server listens. */
  start?(): Promise<void>;
  /** Stops consumers and timers; called after the HTTP server has drained. */
  stop?(): Promise<void>;
}

/**
 * A service as a module (Grafana Loki's targets): a name, the modules it needs started first, and an init that
 * migrates its schema and composes its app. `--target=all` is only the module set holding every service.
 */
export interface ServiceModule {
  name: ServiceName;
  dependsOn: ServiceName[];
  init(ctx: ServiceContext): Promise<ServiceInstance>;
}

/** Orders modules so that each comes after its dependencies; throws on a cycle or a missing dependency. */
export function orderModules(modules: ServiceModule[]): ServiceModule[] {
  const byName = new Map(modules.map((m) => [m.name, m]));
  const ordered: ServiceModule[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (m: ServiceModule, path: string[]) => {
    if (state.get(m.name) === 'done') return;
    if (state.get(m.name) === 'visiting') throw new Error(`Module dependency cycle: ${[...path, m.name].join(' -> ')}`);
    state.set(m.name, 'visiting');
    for (const dep of m.dependsOn) {
      const d = byName.get(dep);
      if (d) visit(d, [...path, m.name]);
    }
    state.set(m.name, 'done');
    ordered.push(m);
  };
  for (const m of modules) visit(m, []);
  return ordered;
}
