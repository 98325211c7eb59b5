import type Stripe from 'stripe';
import type { EventBus } from '@trove/bus';
import { fields, type Logger } from '@trove/platform';
import { setTenantPlan, tenantPlanOf } from '../store/plans';
import type { Db, Trx } from '../store/schema';
import { isPaidPlan, planOfPrice, type StripeSettings } from './settings';

/** What handling an event did, kept beside its id (the audit trail of what the provider told us). */
type Outcome = 'applied' | 'stale' | 'ignored' | 'logged';

interface Handled {
  outcome: Outcome;
  tenantId?: string;
  subscriptionId?: string | null;
}

/** Subscription statuses under which the tenant keeps its paid plan (past_due: the provider is still retrying). */
const PAYING = new Set<Stripe.Subscription.Status>(['active', 'trialing', 'past_due']);
/** Statuses after which nothing more will be paid: the tenant is back on free. */
const ENDED = new Set<Stripe.Subscription.Status>(['canceled', 'unpaid', 'incomplete_expired', 'paused']);

const idOf = (ref: string | { id: string } | null | undefined): string | null => (typeof ref === 'string' ? ref : (ref?.id ?? null));
const uuidOr = (value: string | null | undefined) => (value && fields.uuid.safeParse(value).success ? value.toLowerCase() : undefined);

/**
 * Applies the payment provider's events to tenants' plans. Each event is handled once: its id is stored in the
 * transaction that applies it, so a redelivery finds it and changes nothing. Events may arrive in any order; each
 * plan change carries the event's own creation time, and setTenantPlan ignores a change older than the one the
 * tenant's plan row holds, so a late event never undoes a newer one.
 */
export class PaymentWebhookService {
  constructor(private readonly deps: { db: Db; bus: EventBus; settings: StripeSettings; logger: Logger }) {}

  async handle(event: Stripe.Event): Promise<void> {
    const handled = await this.deps.db.transaction().execute(async (trx) => {
      // Claimed first: a concurrent delivery of the same event waits here for this transaction, then finds the id.
      const claimed = await trx
        .insertInto('billing.payment_events')
        .values({ event_id: event.id, type: event.type, created: changedAt(event), outcome: 'pending' })
        .onConflict((oc) => oc.column('event_id').doNothing())
        .returning('event_id')
        .executeTakeFirst();
      if (!claimed) return undefined;
      const handled = await this.apply(trx, event);
      await trx
        .updateTable('billing.payment_events')
        .set({ outcome: handled.outcome, tenant_id: handled.tenantId ?? null, subscription_id: handled.subscriptionId ?? null })
        .where('event_id', '=', event.id)
        .execute();
      return handled;
    });
    if (handled) this.deps.logger.info({ eventId: event.id, type: event.type, ...handled }, 'payment event handled');
    else this.deps.logger.info({ eventId: event.id, type: event.type }, 'payment event already handled; nothing changed');
  }

  private async apply(trx: Trx, event: Stripe.Event): Promise<Handled> {
    switch (event.type) {
      case 'checkout.session.completed':
        return this.checkoutCompleted(trx, event, event.data.object);
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted':
        return this.subscriptionChanged(trx, event, event.data.object);
      case 'invoice.paid':
      case 'invoice.payment_failed':
        return this.invoice(trx, event, event.data.object);
      default:
        return { outcome: 'ignored' };
    }
  }

  /** A paid checkout activates the plan it sold and saves the customer and subscription ids. */
  private async checkoutCompleted(trx: Trx, event: Stripe.Event, session: Stripe.Checkout.Session): Promise<Handled> {
    const tenantId = uuidOr(session.client_reference_id) ?? uuidOr(session.metadata?.tenant_id);
    const subscriptionId = idOf(session.subscription);
    const plan = session.metadata?.plan;
    if (!tenantId || session.mode !== 'subscription' || !subscriptionId || !plan || !isPaidPlan(plan)) {
      this.deps.logger.warn({ eventId: event.id, session: session.id }, 'checkout completed without a tenant, a subscription or a plan we sell; ignored');
      return { outcome: 'ignored', tenantId, subscriptionId };
    }
    // A payment method that settles later (bank debit) leaves the session unpaid: the subscription's events activate it.
    if (session.payment_status === 'unpaid' || (await this.hasEnded(trx, subscriptionId))) return { outcome: 'ignored', tenantId, subscriptionId };
    const applied = await setTenantPlan(trx, this.deps.bus, {
      tenant_id: tenantId,
      plan,
      stripe_customer_id: idOf(session.customer),
      stripe_subscription_id: subscriptionId,
      changed_at: changedAt(event),
    });
    return { outcome: applied ? 'applied' : 'stale', tenantId, subscriptionId };
  }

  /**
   * A subscription's state sets the plan on its own: the plan from its price, free once it ended. Only the tenant's
   * current subscription (or any, for a tenant without one) may change its plan, so the end of a subscription the
   * tenant already replaced does not take its new plan away.
   */
  private async subscriptionChanged(trx: Trx, event: Stripe.Event, sub: Stripe.Subscription): Promise<Handled> {
    const customerId = idOf(sub.customer);
    const subscriptionId = sub.id;
    const tenantId = uuidOr(sub.metadata?.tenant_id) ?? (await this.tenantOfCustomer(trx, customerId));
    if (!tenantId) {
      this.deps.logger.warn({ eventId: event.id, subscription: sub.id }, 'subscription event for no tenant we know; ignored');
      return { outcome: 'ignored', subscriptionId };
    }
    const current = await tenantPlanOf(trx, tenantId);
    if (current?.stripe_subscription_id && current.stripe_subscription_id !== sub.id) {
      this.deps.logger.info({ eventId: event.id, subscription: sub.id, current: current.stripe_subscription_id }, 'event of a subscription the tenant no longer has; ignored');
      return { outcome: 'ignored', tenantId, subscriptionId };
    }
    const ended = event.type === 'customer.subscription.deleted' || ENDED.has(sub.status);
    if (ended) {
      const applied = await setTenantPlan(trx, this.deps.bus, {
        tenant_id: tenantId,
        plan: 'free',
        stripe_customer_id: customerId,
        stripe_subscription_id: null,
        billing_period_end: null,
        changed_at: changedAt(event),
      });
      return { outcome: applied ? 'applied' : 'stale', tenantId, subscriptionId };
    }
    // incomplete: the first payment has not gone through yet; nothing to grant until it has. A deleted subscription
    // stays deleted whatever its other events say.
    if (!PAYING.has(sub.status) || (await this.hasEnded(trx, sub.id))) return { outcome: 'ignored', tenantId, subscriptionId };
    const item = sub.items?.data?.[0];
    const plan = planOfPrice(this.deps.settings, item?.price?.id);
    if (!plan) {
      this.deps.logger.warn({ eventId: event.id, subscription: sub.id, price: item?.price?.id }, 'subscription to a price that is neither STRIPE_PRICE_PRO nor STRIPE_PRICE_SCALE; ignored');
      return { outcome: 'ignored', tenantId, subscriptionId };
    }
    const applied = await setTenantPlan(trx, this.deps.bus, {
      tenant_id: tenantId,
      plan,
      stripe_customer_id: customerId,
      stripe_subscription_id: sub.id,
      billing_period_end: periodEndOf(sub),
      changed_at: changedAt(event),
    });
    return { outcome: applied ? 'applied' : 'stale', tenantId, subscriptionId };
  }

  /** Invoices change no plan (the provider retries failed payments and says so with subscription events): logged only. */
  private async invoice(trx: Trx, event: Stripe.Event, invoice: Stripe.Invoice): Promise<Handled> {
    const customerId = idOf(invoice.customer);
    const tenantId = await this.tenantOfCustomer(trx, customerId);
    const facts = { eventId: event.id, invoice: invoice.id, customerId, tenantId, amount: invoice.amount_paid, amountDue: invoice.amount_due, currency: invoice.currency };
    if (event.type === 'invoice.paid') this.deps.logger.info({ audit: 'invoice.paid', ...facts }, 'invoice paid');
    else this.deps.logger.warn({ audit: 'invoice.payment_failed', attempt: invoice.attempt_count, ...facts }, 'invoice payment failed; the provider retries it');
    return { outcome: 'logged', tenantId };
  }

  /** Whether the provider already told us it deleted the subscription (deleted subscriptions never come back). */
  private async hasEnded(trx: Trx, subscriptionId: string): Promise<boolean> {
    const row = await trx
      .selectFrom('billing.payment_events')
      .select('event_id')
      .where('subscription_id', '=', subscriptionId)
      .where('type', '=', 'customer.subscription.deleted')
      .executeTakeFirst();
    return row !== undefined;
  }

  private async tenantOfCustomer(trx: Trx, customerId: string | null): Promise<string | undefined> {
    if (!customerId) return undefined;
    const row = await trx.selectFrom('billing.tenant_plans').select('tenant_id').where('stripe_customer_id', '=', customerId).executeTakeFirst();
    return row?.tenant_id;
  }
}

/** The provider's time of the event (seconds since the epoch): what orders a tenant's plan changes. */
function changedAt(event: Stripe.Event): Date {
  return new Date(event.created * 1000);
}

/**
 * The end of the subscription's current period: on its items since the provider's 2025 API versions, on the
 * subscription itself before.
 */
function periodEndOf(sub: Stripe.Subscription): Date | null {
  const seconds = sub.items?.data?.[0]?.current_period_end ?? (sub as unknown as { current_period_end?: number }).current_period_end;
  return typeof seconds === 'number' ? new Date(seconds * 1000) : null;
}
