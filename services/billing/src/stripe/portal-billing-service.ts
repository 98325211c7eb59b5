import type { Plan } from '@trove/contracts';
import { ERRORS } from '@trove/platform';
import { tenantPlanOf } from '../store/plans';
import type { StripeProvider } from './provider';
import type { Db } from '../store/schema';
import { isPaidPlan, type StripeSettings } from './settings';

/** GET /portal/billing/status. */
export interface BillingStatus {
  plan: Plan;
  has_subscription: boolean;
  /** ISO time; null on the free plan. */
  billing_period_end: string | null;
  /** Always true: billing answers only in cloud mode. */
  is_cloud: true;
}

/** The portal's billing: buying a plan, managing it at the provider, and where the tenant stands. Cloud mode only. */
export class PortalBillingService {
  constructor(private readonly deps: { db: Db; provider: StripeProvider; settings: StripeSettings }) {}

  /**
   * A checkout for a paid plan. 400 for a plan that is not for sale here (free, enterprise, or a paid plan without
   * a configured price) and for a tenant that already pays for one: it changes plans in the billing portal instead
   * of buying a second subscription.
   */
  async checkout(tenantId: string, input: { plan: Plan; success_url: string; cancel_url: string }): Promise<{ checkout_url: string }> {
    const price = isPaidPlan(input.plan) ? this.deps.settings.prices[input.plan] : undefined;
    if (!isPaidPlan(input.plan) || !price) throw ERRORS.badRequest(`Plan '${input.plan}' cannot be bought; choose pro or scale`);
    const row = await tenantPlanOf(this.deps.db, tenantId);
    if (row?.stripe_subscription_id && isPaidPlan(row.plan)) {
      throw ERRORS.badRequest('This account already has a subscription; change its plan in the billing portal');
    }
    const checkout_url = await this.deps.provider.checkoutUrl({
      tenantId,
      plan: input.plan,
      price,
      customerId: row?.stripe_customer_id ?? null,
      successUrl: input.success_url,
      cancelUrl: input.cancel_url,
    });
    return { checkout_url };
  }

  /** The provider's customer portal, for a tenant that is a paying customer (400 otherwise: there is nothing to manage). */
  async portal(tenantId: string, returnUrl: string): Promise<{ portal_url: string }> {
    const row = await tenantPlanOf(this.deps.db, tenantId);
    if (!row?.stripe_customer_id || !isPaidPlan(row.plan)) throw ERRORS.badRequest('This account has no paid subscription to manage');
    return { portal_url: await this.deps.provider.portalUrl(row.stripe_customer_id, returnUrl) };
  }

  async status(tenantId: string): Promise<BillingStatus> {
    const row = await tenantPlanOf(this.deps.db, tenantId);
    // In the cloud a tenant billing never set a plan for is on free (docs/behaviour/plans-and-limits.md).
    const plan = row?.plan ?? 'free';
    const paid = isPaidPlan(plan);
    return {
      plan,
      has_subscription: paid && !!row?.stripe_subscription_id,
      billing_period_end: paid && row?.billing_period_end ? row.billing_period_end.toISOString() : null,
      is_cloud: true,
    };
  }
}
