import { z } from 'zod';
import { endpoint, withKey, withoutCredential, withPortalToken, type Endpoint } from '../endpoint';
import { PLANS } from '../plans';

/** A usage period: the month, as YYYY-MM (UTC). */
const period = z.string().regex(/^\d{4}-\d{2}$/);
const count = z.number().int().nonnegative();

export const USAGE = endpoint({
  service: 'billing',
  method: 'GET',
  path: '/usage',
  summary: "The key's tenant's requests and searches of the current month, and its active records now",
  exposed: withKey(),
  answer: z.object({
    tenant_id: z.guid(),
    usage: z.object({ requests: count, searches: count, records: count }),
  }),
});

/** One metered quantity of the portal's usage: what was used, what the plan includes, and what lies beyond. */
const metered = z.object({
  used: count,
  /** Null when the plan does not limit it. */
  included: count.nullable(),
  overage: count,
  /** EUR; 0 where the plan has no overage price (blocked, unlimited, or priced by contract). */
  overage_cost: z.number().nonnegative(),
});

export const PORTAL_USAGE = endpoint({
  service: 'billing',
  method: 'GET',
  path: '/portal/usage',
  summary: "The signed-in tenant's plan, this month's records and searches against it (and searches per day), its rate limits and the overage to expect",
  exposed: withPortalToken,
  answer: z.object({
    tenant_id: z.guid(),
    plan: z.enum(PLANS),
    period,
    records: metered,
    searches: metered,
    /**
     * Searches of each day (UTC) of the period so far, oldest first: the first of the month to today, zeros included
     * (docs/behaviour/portal-usage.md).
     */
    searches_by_day: z.array(z.object({ date: z.iso.date(), count })),
    rate_limit: z.object({
      requests_per_minute: z.number().int().positive(),
      search_per_minute: z.number().int().positive(),
      /** -1: unlimited. */
      max_collections: z.number().int().min(-1),
    }),
    allows_overage: z.boolean(),
    /** EUR. */
    estimated_overage_total: z.number().nonnegative(),
  }),
});

/** Where the payment provider sends the person back: an absolute http(s) address. */
const returnAddress = z
  .string()
  .max(2048)
  .pipe(z.url({ protocol: /^https?$/ }));

export const PORTAL_BILLING_CHECKOUT = endpoint({
  service: 'billing',
  method: 'POST',
  path: '/portal/billing/checkout',
  summary: "A payment provider checkout page's URL for a subscription of the signed-in tenant to a paid plan (cloud only)",
  exposed: withPortalToken,
  // A name that is no plan at all is a 422; a plan that exists but is not sold (free, enterprise) is a 400.
  body: z.object({ plan: z.enum(PLANS), success_url: returnAddress, cancel_url: returnAddress }),
  example: { plan: 'pro', success_url: 'https://portal.example.com/billing?done=1', cancel_url: 'https://portal.example.com/billing' },
  answer: z.object({ checkout_url: z.url() }),
  refusals: [400, 404],
});

export const PORTAL_BILLING_PORTAL = endpoint({
  service: 'billing',
  method: 'POST',
  path: '/portal/billing/portal',
  summary: "The payment provider's customer portal URL, where a paying tenant manages its subscription (cloud only)",
  exposed: withPortalToken,
  body: z.object({ return_url: returnAddress }),
  example: { return_url: 'https://portal.example.com/billing' },
  answer: z.object({ portal_url: z.url() }),
  refusals: [400, 404],
});

export const PORTAL_BILLING_STATUS = endpoint({
  service: 'billing',
  method: 'GET',
  path: '/portal/billing/status',
  summary: "The signed-in tenant's plan, whether it has a subscription, and when its billing period ends (cloud only)",
  exposed: withPortalToken,
  answer: z.object({
    plan: z.enum(PLANS),
    has_subscription: z.boolean(),
    /** Null on the free plan. */
    billing_period_end: z.iso.datetime().nullable(),
    /** Always true: these routes answer only in the cloud. */
    is_cloud: z.literal(true),
  }),
  refusals: [404],
});

/**
 * A payment provider (Stripe) event, as the provider sends it: JSON, signed in the Stripe-Signature header over its
 * exact bytes (so the service reads the raw body, of any content type, up to 1 MB). Only the fields every event has.
 */
const paymentEvent = z.looseObject({
  id: z.string(),
  object: z.literal('event'),
  type: z.string(),
  /** Seconds since the epoch. */
  created: z.number().int(),
  data: z.looseObject({ object: z.looseObject({}) }),
});

export const PAYMENT_WEBHOOK = endpoint({
  service: 'billing',
  method: 'POST',
  path: '/billing/payment/webhook',
  summary: "Takes a payment provider event, verified by its Stripe-Signature header over the raw body, and applies it to the tenant's plan (cloud only)",
  exposed: withoutCredential('/api/v1'),
  headers: z.object({ 'stripe-signature': z.string().describe("The payment provider's signature of the raw body") }),
  body: paymentEvent,
  example: {
    id: 'evt_1Q2w3E4r5T6y7U8i',
    object: 'event',
    type: 'invoice.paid',
    created: 1795737600,
    data: { object: { id: 'in_1Q2w3E4r5T6y7U8i', customer: 'cus_Q2w3E4r5T6y7U8' } },
  },
  answer: z.object({ received: z.literal(true) }),
  refusals: [400, 404],
});

/** Every public endpoint the billing service answers (all but USAGE and PORTAL_USAGE only with DEPLOYMENT_MODE=cloud). */
export const BILLING_API: readonly Endpoint[] = [USAGE, PORTAL_USAGE, PORTAL_BILLING_CHECKOUT, PORTAL_BILLING_PORTAL, PORTAL_BILLING_STATUS, PAYMENT_WEBHOOK];
