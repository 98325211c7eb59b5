import Stripe from 'stripe';
import type { PaidPlan, StripeSettings } from './settings';

/** The billing meter search overage is reported to (docs/behaviour/billing.md, Metering). */
export const SEARCH_METER_EVENT = 'trove_search';

export interface CheckoutRequest {
  tenantId: string;
  plan: PaidPlan;
  price: string;
  /** The tenant's customer at the provider, when it has one, so a second purchase does not make a second customer. */
  customerId: string | null;
  successUrl: string;
  cancelUrl: string;
}

export interface MeterReport {
  /** The provider deduplicates on it: the same identifier sent twice counts once. */
  identifier: string;
  customerId: string;
  value: number;
  /** Seconds since the epoch. */
  timestamp: number;
}

/**
 * The payment provider as billing uses it: checkout and customer-portal sessions, meter events, and webhook
 * verification. The one place that speaks the provider's SDK; constructed only in cloud mode.
 */
export class StripeProvider {
  private readonly stripe: Stripe;

  constructor(private readonly settings: StripeSettings) {
    this.stripe = new Stripe(settings.secretKey, {
      host: settings.api.host,
      port: settings.api.port,
      protocol: settings.api.protocol,
      // A retried create carries the SDK's idempotency key, so it cannot make a second session. One retry and a short
      // timeout keep a portal request well inside the gateway's upstream timeout when the provider is slow.
      maxNetworkRetries: 1,
      timeout: 8_000,
      telemetry: false,
    });
  }

  /** A subscription checkout for the plan's price; the tenant id rides on the session and on the subscription it makes. */
  async checkoutUrl(req: CheckoutRequest): Promise<string> {
    const metadata = { tenant_id: req.tenantId, plan: req.plan };
    const session = await this.stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: req.price, quantity: 1 }],
      client_reference_id: req.tenantId,
      metadata,
      subscription_data: { metadata },
      ...(req.customerId && { customer: req.customerId }),
      success_url: req.successUrl,
      cancel_url: req.cancelUrl,
    });
    if (!session.url) throw new Error(`checkout session ${session.id} came back without a URL`);
    return session.url;
  }

  async portalUrl(customerId: string, returnUrl: string): Promise<string> {
    const session = await this.stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl });
    return session.url;
  }

  /** Sent again after a failure, the identifier as idempotency key replays the first answer instead of failing. */
  async reportMeter(report: MeterReport): Promise<void> {
    await this.stripe.billing.meterEvents.create({
      event_name: SEARCH_METER_EVENT,
      identifier: report.identifier,
      timestamp: report.timestamp,
      payload: { stripe_customer_id: report.customerId, value: String(report.value) },
    }, { idempotencyKey: report.identifier });
  }

  /**
   * The event the raw body holds, once its signature header proves the provider sent it within the last 300 s;
   * throws (Stripe.errors.StripeSignatureVerificationError) on a missing, wrong or stale signature.
   */
  verifiedEvent(raw: Buffer, signature: string | undefined): Stripe.Event {
    return this.stripe.webhooks.constructEvent(raw, signature ?? '', this.settings.webhookSecret, WEBHOOK_TOLERANCE_SECONDS);
  }
}

/** How old a signed webhook may be: older ones are refused as possible replays. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;
