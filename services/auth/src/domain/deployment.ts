import type { Plan } from '@trove/contracts';
import type { Config } from '@trove/platform';
import { planForNewTenant } from './key-rules';

/** A new tenant starts on free in the cloud and on enterprise when self-hosted (docs/behaviour/plans-and-limits.md). */
export function newTenantPlan(config: Config): Plan {
  return planForNewTenant(config.DEPLOYMENT_MODE);
}
