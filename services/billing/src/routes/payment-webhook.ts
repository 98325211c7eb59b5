import express from 'express';
import { ERRORS, type Router } from '@trove/platform';
import type { StripeProvider } from '../stripe/provider';
import type { PaymentWebhookService } from '../stripe/webhook-service';

/** The path the gateway forwards the provider's webhook to (no credential: the signature is the proof). */
export const PAYMENT_WEBHOOK_PATH = '/billing/payment/webhook';

/** Provider events are small; anything larger is not one. */
const WEBHOOK_BODY_LIMIT = '1mb';

/**
 * POST /billing/payment/webhook: the provider's event, verified on the exact bytes it signed (the app leaves this
 * path's body unparsed), 400 on a missing, wrong or stale signature; 200 once handled (a duplicate is handled as
 * nothing to do). A failure to apply answers 500, and the provider delivers the event again later.
 */
export function paymentWebhookRoutes(router: Router, provider: StripeProvider, webhooks: PaymentWebhookService): void {
  router.post(PAYMENT_WEBHOOK_PATH, express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT }), async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    let event;
    try {
      event = provider.verifiedEvent(raw, req.get('stripe-signature'));
    } catch (err) {
      req.log.warn({ reason: (err as Error).message }, 'payment webhook refused: bad signature');
      throw ERRORS.badRequest('Invalid payment webhook signature');
    }
    await webhooks.handle(event);
    res.json({ received: true });
  });
}
