#!/usr/bin/env node
import { createTenantWithAdminKey } from '@trove/auth-service';
import { setPlanCommand, setPlanRequest } from '@trove/billing-service';
import { reencryptConnectors } from '@trove/connector-service';
import { DataFolderLockedError, openDatabase } from '@trove/db';
import { ConfigError, createLogger, databaseUrl, loadConfig, type Config } from '@trove/platform';
import { startSystem } from '@trove/runtime';
import { USAGE, parseArgs } from './args';
import { requireConnectorKey, requireSharedSecret, resolveTargets } from './modules';

async function start(config: Config, target: string): Promise<void> {
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'trove' });
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
  const system = await startSystem({ config, logger, modules });
  logger.info({ ports: system.ports, env: config.ENV }, `Trove is up (${modules.map((m) => m.name).join(', ')})`);

  let stopping = false;
  const shutdown = async (signal: string, code: number) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await system.stop();
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
}

async function createTenant(config: Config, options: Record<string, string>): Promise<void> {
  if (!options.name || options.name === 'true') throw new Error('create-tenant needs --name <name>');
  const database = await openDatabase({ url: databaseUrl(config, 'auth'), dataDir: config.DATA_DIR });
  try {
    const created = await createTenantWithAdminKey(database, config, { name: options.name, tenantId: options['tenant-id'] });
    process.stdout.write(
      `tenant_id: ${created.tenant_id}\nkey_id: ${created.key_id}\nkey: ${created.key}\n` +
        'Store this key now: it is shown only once.\n',
    );
  } finally {
    await database.close();
  }
}

async function setPlan(config: Config, options: Record<string, string>): Promise<void> {
  if (!options.tenant || options.tenant === 'true') throw new Error('set-plan needs --tenant <uuid>');
  if (!options.plan || options.plan === 'true') throw new Error('set-plan needs --plan <free|pro|scale|enterprise>');
  const request = setPlanRequest(config, { tenantId: options.tenant, plan: options.plan });
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'trove' });
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

async function main(): Promise<void> {
  const { command, options } = parseArgs(process.argv.slice(2));
  if (command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  // `pnpm start` passes --default-env=development so the first run needs no secrets; ENV always wins.
  if (options['default-env'] && !process.env.ENV) process.env.ENV = options['default-env'];
  const config = loadConfig(process.env);
  if (command === 'create-tenant') await createTenant(config, options);
  else if (command === 'set-plan') await setPlan(config, options);
  else if (command === 'reencrypt-connectors') await reencrypt(config);
  else await start(config, options.target ?? 'all');
}

main().catch((err) => {
  if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
  else if (err instanceof DataFolderLockedError) process.stderr.write(`trove: ${err.message}\n`);
  else process.stderr.write(`trove: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
