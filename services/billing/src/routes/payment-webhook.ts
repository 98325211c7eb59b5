import express from 'express';
import { PAYMENT_WEBHOOK, type EndpointAnswer } from '@trove/contracts';
import { ERRORS, handle, type Router } from '@trove/platform';
import type { StripeProvider } from '../stripe/provider';
import type { PaymentWebhookService } from '../stripe/webhook-service';

/** Provider events are small; anything larger is not one. */
const WEBHOOK_BODY_LIMIT = '1mb';

/**
 * POST /billing/payment/webhook: the provider's event, verified on the exact bytes it signed (the app leaves this
 * path's body unparsed, and the provider's SDK reads the event from them, so PAYMENT_WEBHOOK.body only documents it),
 * 400 on a missing, wrong or stale signature; 200 once handled (a duplicate is handled as nothing to do). A failure
 * to apply answers 500, and the provider delivers the event again later.
 */
export function paymentWebhookRoutes(router: Router, provider: StripeProvider, webhooks: PaymentWebhookService): void {
  handle(router, PAYMENT_WEBHOOK, express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT }), async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    let event;
    try {
      event = provider.verifiedEvent(raw, req.get('stripe-signature'));
    } catch (err) {
      req.log.warn({ reason: (err as Error).message }, 'payment webhook refused: bad signature');
      throw ERRORS.badRequest('Invalid payment webhook signature');
    }
    await webhooks.handle(event);
    res.json({ received: true } satisfies EndpointAnswer<typeof PAYMENT_WEBHOOK>);
  });
}
