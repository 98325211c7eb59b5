import type { EventBus } from '@trove/bus';
import type { Config, Logger } from '@trove/platform';
import { SearchMeter } from './metering';
import { PortalBillingService } from './portal-billing-service';
import { StripeProvider } from './provider';
import type { Db } from '../store/schema';
import { stripeSettingsOf } from './settings';
import { PaymentWebhookService } from './webhook-service';

/** Billing's payment-provider side: present in cloud mode only. */
export interface Payments {
  provider: StripeProvider;
  webhooks: PaymentWebhookService;
  portal: PortalBillingService;
  meter: SearchMeter;
}

/**
 * The payment side in cloud mode (refusing to start without its secrets), undefined when self-hosted: no provider
 * client is constructed then, so no provider call can happen, and no billing route is mounted.
 */
export function createPayments(deps: { config: Config; db: Db; bus: EventBus; logger: Logger }): Payments | undefined {
  const settings = stripeSettingsOf(deps.config);
  if (!settings) return undefined;
  const provider = new StripeProvider(settings);
  return {
    provider,
    webhooks: new PaymentWebhookService({ db: deps.db, bus: deps.bus, settings, logger: deps.logger.child({ component: 'payment-webhook' }) }),
    portal: new PortalBillingService({ db: deps.db, provider, settings }),
    meter: new SearchMeter({ db: deps.db, provider, logger: deps.logger.child({ component: 'search-meter' }), intervalMs: settings.meterIntervalMs }),
  };
}
