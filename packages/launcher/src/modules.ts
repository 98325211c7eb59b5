import { authModule } from '@trove/auth-service';
import { gatewayModule } from '@trove/gateway-service';
import { ingestionModule } from '@trove/ingestion-service';
import { mcpModule } from '@trove/mcp-service';
import { openModule } from '@trove/open-service';
import { recordsModule } from '@trove/records-service';
import { searchModule } from '@trove/search-service';
import type { ServiceModule } from '@trove/runtime';

/** Every service module this build contains; `all` starts each of them. */
export const MODULES: ServiceModule[] = [authModule, recordsModule, ingestionModule, searchModule, openModule, mcpModule, gatewayModule];

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
