import { z } from 'zod';
import { endpoint, type Exposure } from '../endpoint';
import type { ServiceName } from '../service-names';

/** GET /health of a service app: the process is up. */
export const serviceHealthAnswer = z.object({ status: z.literal('ok'), service: z.string() });

/**
 * GET /health/ready of a service app, when every dependency it checks answered in time. When one did not, the answer
 * is 503 with `{detail, status: 'unavailable', dependencies}`.
 */
const serviceReadinessAnswer = z.object({
  status: z.literal('ready'),
  service: z.string(),
  /** Each dependency the service checks (database, event bus, cache, …), by name. */
  dependencies: z.record(z.string(), z.enum(['up', 'down'])),
});

/**
 * What every service app answers itself (platform's createServiceApp registers them from these), without an identity:
 * its liveness, its readiness and its Prometheus metrics. Internal unless `exposed`: the gateway's are public at its
 * root and under /api/v1, open's under /open/v1.
 */
export function serviceAppEndpoints(service: ServiceName, what: string = `the ${service} service`, exposed?: Exposure) {
  return {
    health: endpoint({
      service,
      method: 'GET',
      path: '/health',
      summary: `Liveness of ${what}: answers 200 while its process is up`,
      exposed,
      answer: serviceHealthAnswer,
    }),
    ready: endpoint({
      service,
      method: 'GET',
      path: '/health/ready',
      summary: `Readiness of ${what}: 200 when every dependency it checks answers, 503 naming those that do not`,
      exposed,
      answer: serviceReadinessAnswer,
    }),
    metrics: endpoint({
      service,
      method: 'GET',
      path: '/metrics',
      summary: `The Prometheus metrics of ${what}`,
      exposed,
      produces: ['text/plain'],
      answer: z.string(),
    }),
  };
}
