import type { Express } from 'express';
import {
  SERVICE_NAMES,
  defaultMetricsRegistry,
  listen,
  metricsOf,
  serveProcessMetrics,
  servicePort,
  setAccessLog,
  type Config,
  type Logger,
  type ProcessMetrics,
  type RunningServer,
  type ServiceName,
} from '@trove/platform';
import { orderModules, serviceContext, type ServiceInstance, type ServiceModule } from './module';
import { ProcessStorage } from './storage';

export interface StartSystemOptions {
  config: Config;
  logger: Logger;
  modules: ServiceModule[];
  /** Overrides the port of a service (tests use 0 for a free port). */
  ports?: Partial<Record<string, number>>;
}

export interface RunningSystem {
  /** Port of each service of the process that listens (see listensOnItsOwnPort); the others answer in process only. */
  ports: Record<string, number>;
  stop(): Promise<void>;
}

/**
 * Whether a module opens a port of its own (HOST, and PORT or <NAME>_PORT), given the services its process runs. The
 * gateway always does. A service does only when callers outside the process may need it: a process running every
 * service (`--target=all`) has none but the gateway's clients, so its services answer the gateway and each other in
 * process and open no port, and two such systems on one machine need nothing but different PORTs. A process running
 * some services is called by the system's other processes, so each of its services listens.
 */
export function listensOnItsOwnPort(name: ServiceName, inProcess: readonly ServiceName[]): boolean {
  return name === 'gateway' || !SERVICE_NAMES.every((service) => inProcess.includes(service));
}

/**
 * Starts modules in dependency order and stops them in reverse: each module's HTTP server (if it has one) drains,
 * then its consumers stop; the buses and pools close last. A module calls the others of this process in process (their
 * express apps, with the same identity check) and any other service over HTTP. If any module fails to start,
 * everything started so far is stopped and the error is rethrown, so the process never runs half a system.
 */
export async function startSystem(opts: StartSystemOptions): Promise<RunningSystem> {
  const { config, logger } = opts;
  const storage = new ProcessStorage(config, logger, true);
  const started: Array<{ name: ServiceName; server?: RunningServer; instance: ServiceInstance }> = [];
  const ports: Record<string, number> = {};
  const inProcess = opts.modules.map((m) => m.name);
  // Apps of the modules initialised so far: a client made before its service has started finds it at call time.
  const apps = new Map<ServiceName, Express>();
  const local = (service: ServiceName) => (inProcess.includes(service) ? () => apps.get(service) : undefined);
  // Every /metrics of the process serves the process's default metrics and every started service's (METRICS_ENABLED).
  const metrics: ProcessMetrics = { enabled: config.METRICS_ENABLED, registries: config.METRICS_ENABLED ? [defaultMetricsRegistry()] : [] };

  const stop = async () => {
    // Module by module in reverse dependency order: each drains its HTTP and then stops its background work while
    // the modules it depends on still answer (ingestion flushes its stream buffers into records on stop).
    for (const s of [...started].reverse()) {
      await s.server?.close(config.SHUTDOWN_TIMEOUT_MS).catch((err) => logger.error({ err, service: s.name }, 'HTTP drain failed'));
      await s.instance.stop?.().catch((err) => logger.error({ err, service: s.name }, 'service stop failed'));
      apps.delete(s.name);
    }
    started.length = 0;
    await storage.close();
  };

  try {
    for (const module of orderModules(opts.modules)) {
      const log = logger.child({ service: module.name });
      const { database, bus } = await storage.of(module.name);
      const ctx = serviceContext(module.name, { config, logger: log, database, bus, local });
      const instance = await module.init(ctx);
      apps.set(module.name, instance.app);
      // The context's registry, and the app's when the service let createServiceApp make one of its own.
      const own = metricsOf(instance.app)?.registry;
      if (metrics.enabled) metrics.registries.push(...new Set([ctx.registry, ...(own ? [own] : [])]));
      serveProcessMetrics(instance.app, metrics);
      setAccessLog(instance.app, config.ACCESS_LOG);
      let server: RunningServer | undefined;
      if (listensOnItsOwnPort(module.name, inProcess)) {
        server = await listen(instance.app, opts.ports?.[module.name] ?? servicePort(config, module.name), config.HOST);
        ports[module.name] = server.port;
      }
      started.push({ name: module.name, server, instance });
      await instance.start?.();
      if (server) log.info({ port: server.port }, `${module.name} listening`);
      else log.info(`${module.name} answers in process only`);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { ports, stop };
}
