import type { Plan } from '@trove/contracts';
import type { Config } from '@trove/platform';

/** The plan of a tenant billing has no row for: enterprise when self-hosted, free in the cloud (design.md). */
export function defaultPlan(mode: Config['DEPLOYMENT_MODE']): Plan {
  return mode === 'cloud' ? 'free' : 'enterprise';
}
