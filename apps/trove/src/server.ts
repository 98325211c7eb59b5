import { relative } from 'node:path';
import { createTenantWithAdminKey } from '@trove/auth-service';
import { setPlanCommand, setPlanRequest } from '@trove/billing-service';
import { reencryptConnectors } from '@trove/connector-service';
import { DataFolderLockedError, openDatabase } from '@trove/db';
import { ConfigError, createLogger, databaseUrl, loadConfig, servicePort, stopTracing, type Config } from '@trove/platform';
import { startSystem } from '@trove/runtime';
import type { ServerActions, ServerOptions } from './args';
import { migrate } from './migrate';
import { MODULES, requireConnectorKey, requireSharedSecret, resolveTargets } from './modules';

/*
 * The server commands: what `trove start`, `create-tenant`, `set-plan` and `reencrypt-connectors` do. main.ts loads
 * this file only when one of them runs, as it loads every service: a client command starts without them.
 */

async function start(config: Config, target: string): Promise<void> {
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'trove', format: config.LOG_FORMAT });
  // Signals are handled from the first moment, not once the system is up: a process without a SIGINT listener dies of
  // the signal, and a terminal's Ctrl-C (or an orchestrator's SIGTERM) may come while the start log is still being
  // written, which a package manager running this process then reports as a failure. A signal during the start (which
  // has no unbounded waits) stops the system as soon as it is up; repeated signals change nothing, as a package manager
  // forwards its own copy of the one Ctrl-C that the terminal already sent to the whole process group.
  let system: Awaited<ReturnType<typeof startSystem>> | undefined;
  let stopRequested: { signal: string; code: number } | undefined;
  const shutdown = async (signal: string, code: number) => {
    if (stopRequested) return;
    stopRequested = { signal, code };
    if (!system) {
      logger.info({ signal }, 'stopping once started');
      return;
    }
    logger.info({ signal }, 'shutting down');
    await system.stop();
    // The spans still buffered leave before the process does.
    await stopTracing().catch((err: unknown) => logger.warn({ err }, 'could not send the last traces'));
    logger.info('stopped');
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown('SIGINT', 0));
  process.on('SIGTERM', () => void shutdown('SIGTERM', 0));
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception');
    void shutdown('uncaughtException', 1);
  });
  process.on('unhandledRejection', (err) => {
    logger.fatal({ err }, 'unhandled rejection');
    void shutdown('unhandledRejection', 1);
  });

  const modules = resolveTargets(target);
  requireSharedSecret(config, modules);
  requireConnectorKey(config, modules);
  if (config.usingDevelopmentSalt) {
    logger.warn('API_KEY_SALT not set: API keys are stored under the published development salt; never do this in production');
  }
  if (config.generatedInternalTokenSecret) {
    logger.info('INTERNAL_TOKEN_SECRET not set: this process signs internal tokens with a random secret of its own');
  }
  if (config.generatedJwtSecret) {
    logger.info('JWT_SECRET not set: portal sign-in tokens are signed with a random secret and end when this process stops');
  }
  system = await startSystem({ config, logger, modules });
  logger.info({ ports: system.ports, env: config.ENV }, `Trove is up (${modules.map((m) => m.name).join(', ')})`);
  if (system.ports.gateway !== undefined) {
    const next = nextSteps(config, system.ports.gateway);
    logger.info(next.fields, next.message);
  }
  if (stopRequested) {
    const { signal, code } = stopRequested;
    stopRequested = undefined;
    await shutdown(signal, code);
  }
}

/**
 * The start log's last words, in a process that runs the gateway: where the system answers, where its reference is,
 * and how to get a first key in this mode (README.md, "A first session"; deploy/README.md for production).
 */
function nextSteps(config: Config, port: number): { message: string; fields: Record<string, string> } {
  const host = ['0.0.0.0', '::', ''].includes(config.HOST) ? 'localhost' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  const url = `http://${host}:${port}`;
  const reference = `${url}/docs`;
  const openapi = `${url}/api/v1/openapi.json`;
  const signup = `or sign up in the portal (POST ${url}/api/v1/portal/auth/signup, then POST /api/v1/portal/keys)`;
  let firstKey: string;
  if (config.ENV === 'development') {
    firstKey =
      `curl -s ${url}/api/v1/auth/keys -H "X-Tenant-Id: $(node -e 'console.log(crypto.randomUUID())')" ` +
      `-H 'content-type: application/json' -d '{"name":"first","scopes":["admin"]}'\n` +
      `    (X-Tenant-Id stands in for a key in development and creates its tenant), ${signup}`;
  } else {
    const cli = `node ${relative(process.cwd(), process.argv[1] ?? 'apps/trove/dist/main.js') || 'apps/trove/dist/main.js'} create-tenant --name "<name>"`;
    const embedded = databaseUrl(config, 'auth') === undefined ? ', run while this process is stopped (the embedded database allows one process)' : '';
    firstKey = `${cli} prints a new tenant's admin key once${embedded}; ${signup}`;
  }
  const message = [
    `Next steps (ENV=${config.ENV}):`,
    `  API reference: ${reference} (OpenAPI document: ${openapi})`,
    `  First key: ${firstKey}`,
    '  A record and a search with it: README.md, "A first session"',
  ].join('\n');
  return { message, fields: { url, reference, openapi } };
}

async function createTenant(config: Config, options: { name: string; tenantId?: string }): Promise<void> {
  const database = await openDatabase({ url: databaseUrl(config, 'auth'), dataDir: config.DATA_DIR });
  try {
    const created = await createTenantWithAdminKey(database, config, { name: options.name, tenantId: options.tenantId });
    process.stdout.write(
      `tenant_id: ${created.tenant_id}\nkey_id: ${created.key_id}\nkey: ${created.key}\n` +
        'Store this key now: it is shown only once.\n',
    );
  } finally {
    await database.close();
  }
}

async function setPlan(config: Config, options: { tenant: string; plan: string }): Promise<void> {
  const request = setPlanRequest(config, { tenantId: options.tenant, plan: options.plan });
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'trove', format: config.LOG_FORMAT });
  const database = await openDatabase({ url: databaseUrl(config, 'billing'), dataDir: config.DATA_DIR });
  try {
    const set = await setPlanCommand(database, config, logger, request);
    process.stdout.write(`tenant_id: ${set.tenant_id}\nplan: ${set.plan}\n`);
  } finally {
    await database.close();
  }
}

async function reencrypt(config: Config): Promise<void> {
  const database = await openDatabase({ url: databaseUrl(config, 'connector'), dataDir: config.DATA_DIR });
  try {
    const done = await reencryptConnectors(database, config);
    process.stdout.write(`reencrypted: ${done.reencrypted}\nalready current: ${done.current}\nchanged meanwhile (run again): ${done.skipped}\n`);
  } finally {
    await database.close();
  }
}

/** Reads the configuration once the command line is known: `--default-env` sets ENV when the environment does not. */
function configFor(options: ServerOptions): Config {
  // `pnpm start` passes --default-env=development so the first run needs no secrets; ENV always wins.
  if (options.defaultEnv && !process.env.ENV) process.env.ENV = options.defaultEnv;
  return loadConfig(process.env);
}

/**
 * How a server command's failure reads: one line, no stack trace, for what an operator can act on (the configuration,
 * a data folder or port in use, a refused value); undefined for anything else, printed with its stack as a bug.
 */
export function describeServerFailure(err: unknown): { message: string; exitCode: number; plain?: boolean } | undefined {
  if (err instanceof ConfigError) return { message: err.message, exitCode: 1, plain: true };
  if (err instanceof DataFolderLockedError) return { message: err.message, exitCode: 1 };
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE' || code === 'EACCES') {
    const { port, address } = err as { port?: number; address?: string };
    const problem = code === 'EADDRINUSE' ? 'is in use (EADDRINUSE): another process listens on it' : 'may not be opened by this user (EACCES)';
    return { message: `port ${port ?? '?'}${address ? ` on ${address}` : ''} ${problem}; ${portVariables(port)}`, exitCode: 1 };
  }
  // The services refuse an operator's values (a tenant id that is no UUID, a plan that does not exist) with a plain
  // Error carrying the reason; subclasses (TypeError, a driver's errors) are bugs or outages and keep their stack.
  if (err instanceof Error && Object.getPrototypeOf(err) === Error.prototype && !process.env.TROVE_DEBUG) return { message: err.message, exitCode: 1 };
  return undefined;
}

/** Which variable sets the port that is taken: PORT for the gateway, <SERVICE>_PORT for a service listening apart. */
function portVariables(port: number | undefined): string {
  const names: string[] = [];
  if (port !== undefined) {
    try {
      const config = loadConfig(process.env);
      for (const m of MODULES) if (servicePort(config, m.name) === port) names.push(m.name === 'gateway' ? 'PORT' : `${m.name.toUpperCase()}_PORT`);
    } catch {
      // The configuration was read once already to get this far; if it no longer reads, name no variable.
    }
  }
  return names.length > 0 ? `set ${names.join(' or ')} to a free port` : 'set PORT (or the service\'s <SERVICE>_PORT) to a free port';
}

/** The server commands' actions, each reading the configuration once its command line is known. */
export const serverActions: ServerActions = {
  start: (o) => start(configFor(o), o.target),
  migrate: (o) => migrate(configFor(o), o.target),
  createTenant: (o) => createTenant(configFor(o), o),
  setPlan: (o) => setPlan(configFor(o), o),
  reencryptConnectors: (o) => reencrypt(configFor(o)),
};

/** Why `--target` names no services this build runs (with the valid names), or undefined when it does. */
export function targetProblem(target: string): string | undefined {
  try {
    resolveTargets(target);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
