import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';

/** Test settings of the payment provider: the stand-in's prices and the webhook signing secret. */
export const WEBHOOK_SECRET = 'whsec_trove_test_secret';
export const PRICE_PRO = 'price_trove_pro';
export const PRICE_SCALE = 'price_trove_scale';

const rid = (prefix: string) => `${prefix}_${randomBytes(10).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

/** A provider event in its webhook shape; `created` (seconds) is the event's own time, which orders plan changes. */
export function providerEvent(type: string, object: Record<string, unknown>, created = now()): Record<string, unknown> {
  return {
    id: rid('evt'),
    object: 'event',
    api_version: '2026-10-28.endive',
    created,
    type,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: { object },
  };
}

/** The body and the Stripe-Signature header the provider would send, signed with the SDK's own helper. */
export function signed(event: unknown, opts: { secret?: string; timestamp?: number } = {}): { body: string; signature: string } {
  const body = JSON.stringify(event);
  const signature = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: opts.secret ?? WEBHOOK_SECRET, timestamp: opts.timestamp });
  return { body, signature };
}

export function checkoutCompleted(tenantId: string, opts: { plan?: string; customer?: string; subscription?: string; created?: number } = {}) {
  return providerEvent(
    'checkout.session.completed',
    {
      id: rid('cs_test'),
      object: 'checkout.session',
      mode: 'subscription',
      status: 'complete',
      payment_status: 'paid',
      client_reference_id: tenantId,
      customer: opts.customer ?? rid('cus'),
      subscription: opts.subscription ?? rid('sub'),
      metadata: { tenant_id: tenantId, plan: opts.plan ?? 'pro' },
    },
    opts.created,
  );
}

/** A subscription event (created, updated or deleted) for a subscription to `price`, its period ending at periodEnd. */
export function subscriptionEvent(
  type: 'customer.subscription.created' | 'customer.subscription.updated' | 'customer.subscription.deleted',
  tenantId: string,
  opts: { id: string; customer: string; price?: string; status?: string; created?: number; periodEnd?: number },
) {
  const periodEnd = opts.periodEnd ?? now() + 30 * 24 * 3600;
  return providerEvent(
    type,
    {
      id: opts.id,
      object: 'subscription',
      customer: opts.customer,
      status: opts.status ?? (type === 'customer.subscription.deleted' ? 'canceled' : 'active'),
      created: now() - 3600,
      metadata: { tenant_id: tenantId },
      items: {
        object: 'list',
        data: [
          {
            id: rid('si'),
            object: 'subscription_item',
            price: { id: opts.price ?? PRICE_PRO, object: 'price' },
            current_period_start: periodEnd - 30 * 24 * 3600,
            current_period_end: periodEnd,
          },
        ],
      },
    },
    opts.created,
  );
}

export function invoiceEvent(type: 'invoice.paid' | 'invoice.payment_failed', customer: string) {
  return providerEvent(type, {
    id: rid('in'),
    object: 'invoice',
    customer,
    amount_due: 19900,
    amount_paid: type === 'invoice.paid' ? 19900 : 0,
    attempt_count: 1,
    currency: 'eur',
  });
}
