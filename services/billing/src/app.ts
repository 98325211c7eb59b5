import { PAYMENT_WEBHOOK } from '@trove/contracts';
import { createServiceApp, type Config, type Logger, type ReadinessCheck } from '@trove/platform';
import { paymentWebhookRoutes } from './routes/payment-webhook';
import { portalBillingRoutes } from './routes/portal-billing';
import { usageRoutes } from './routes/usage';
import type { Payments } from './stripe/payments';
import type { UsageService } from './usage-service';

export interface AppDeps {
  config: Config;
  logger: Logger;
  /** Checks of the service's database and the event bus (ServiceContext.readiness), for /health/ready. */
  readiness: Record<string, ReadinessCheck>;
  usage: UsageService;
  /** The payment provider's routes, in cloud mode only; without them every billing path is an unknown route (404). */
  payments?: Payments;
}

/** Composes the billing service's HTTP app from its dependencies; it never listens. */
export function buildApp(deps: AppDeps): ReturnType<typeof createServiceApp> {
  const { config } = deps;
  return createServiceApp({
    name: 'billing',
    logger: deps.logger,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    jsonLimit: config.JSON_BODY_LIMIT,
    readiness: deps.readiness,
    // The payment webhook's signature covers the exact bytes sent: its route reads them itself.
    rawBodyPaths: [new RegExp(`^${PAYMENT_WEBHOOK.path}/?$`, 'i')],
    routes: (router) => {
      usageRoutes(router, deps.usage);
      if (deps.payments) {
        portalBillingRoutes(router, deps.payments.portal);
        paymentWebhookRoutes(router, deps.payments.provider, deps.payments.webhooks);
      }
    },
  });
}
