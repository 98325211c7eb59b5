import { z } from 'zod';
import { endpoint, type EndpointAnswer } from './endpoint';

/** A tenant's counted usage of the current period (YYYY-MM, UTC), 0 before the first; read by search's monthly cap. */
export const BILLING_USAGE = endpoint({
  service: 'billing',
  method: 'GET',
  path: '/internal/billing/usage',
  summary: "A tenant's counted requests and searches of the current month",
  query: z.object({ tenant_id: z.guid() }),
  answer: z.object({
    tenant_id: z.string(),
    period: z.string(),
    searches: z.number().int().nonnegative(),
    requests: z.number().int().nonnegative(),
  }),
});
export type BillingUsageAnswer = EndpointAnswer<typeof BILLING_USAGE>;
