import { planOf, type Plan } from '@trove/contracts';
import { identityOf, type requireScope } from '@trove/platform';

/** An express request handler, as the platform's middleware are typed. */
export type Handler = ReturnType<typeof requireScope>;

/** The plan the request's identity carries (the self-hosted enterprise default when it carries none). */
export function planOfRequest(req: Parameters<Handler>[0]): Plan {
  return planOf(identityOf(req).plan);
}
