import type { Config } from '@trove/platform';
import { planForNewTenant, type Plan } from './keys';

/**
 * DEPLOYMENT_MODE is not part of the shared configuration yet; until it is, every deployment is self-hosted and new
 * tenants are on enterprise.
 */
export function newTenantPlan(config: Config): Plan {
  const mode = (config as Config & { DEPLOYMENT_MODE?: unknown }).DEPLOYMENT_MODE;
  return planForNewTenant(typeof mode === 'string' ? mode : undefined);
}
