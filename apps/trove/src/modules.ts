import { authModule } from '@trove/auth-service';
import { billingModule } from '@trove/billing-service';
import { connectorModule } from '@trove/connector-service';
import { gatewayModule } from '@trove/gateway-service';
import { ingestionModule } from '@trove/ingestion-service';
import { mcpModule } from '@trove/mcp-service';
import { openModule } from '@trove/open-service';
import { recordsModule } from '@trove/records-service';
import { searchModule } from '@trove/search-service';
import { ConfigError, type Config } from '@trove/platform';
import type { ServiceModule } from '@trove/runtime';

/** Every service module this build contains; `all` starts each of them. */
export const MODULES: ServiceModule[] = [authModule, recordsModule, ingestionModule, connectorModule, searchModule, openModule, billingModule, mcpModule, gatewayModule];

/** Resolves `--target=all`, `--target=records` or `--target=auth,records` to modules. */
export function resolveTargets(target: string): ServiceModule[] {
  const names = target
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (names.length === 0 || names.includes('all')) return MODULES;
  const known = new Map(MODULES.map((m) => [m.name as string, m]));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) {
    throw new Error(`Unknown target ${unknown.join(', ')}; valid targets: all, ${MODULES.map((m) => m.name).join(', ')}`);
  }
  return names.map((n) => known.get(n)!);
}

/**
 * A process running some services exchanges internal tokens with the processes running the others, which verify
 * them only with a secret they all share; the one a process makes up when given none would fail every call between
 * processes with 401. So such a process refuses to start without INTERNAL_TOKEN_SECRET, in development too, and,
 * when it runs auth or the gateway, without JWT settings (portal tokens signed by one, verified by the other).
 */
export function requireSharedSecret(config: Config, modules: ServiceModule[]): void {
  if (MODULES.every((m) => modules.includes(m))) return;
  const names = modules.map((m) => m.name).join(', ');
  const missing: string[] = [];
  if (config.generatedInternalTokenSecret) {
    missing.push(
      `  INTERNAL_TOKEN_SECRET: is required when a process runs only some services (${names}): ` +
        'set the same value (32+ characters) in every process of the system',
    );
  }
  // Auth signs portal tokens and the gateway verifies them, in other processes here: they must share the key.
  if (config.generatedJwtSecret && modules.some((m) => m.name === 'auth' || m.name === 'gateway')) {
    missing.push(
      `  JWT_SECRET: is required when a process runs only some services (${names}): set the same value (32+ characters) ` +
        'in every auth and gateway process, or JWT_PRIVATE_KEY in auth and JWT_PUBLIC_KEY in the gateways',
    );
  }
  if (missing.length > 0) throw new ConfigError(`Invalid configuration:\n${missing.join('\n')}`);
}

/**
 * The connector service encrypts tenants' database credentials under CONNECTOR_ENCRYPTION_KEY: in production a
 * process running it refuses to start without one (a key made up per process would lose every stored credential
 * at the next restart).
 */
export function requireConnectorKey(config: Config, modules: ServiceModule[]): void {
  if (config.ENV !== 'production' || !config.generatedConnectorEncryptionKey || !modules.some((m) => m.name === 'connector')) return;
  throw new ConfigError(
    'Invalid configuration:\n  CONNECTOR_ENCRYPTION_KEY: is required when ENV=production (comma-separated 256-bit keys, 64 hex characters or base64 each)',
  );
}
