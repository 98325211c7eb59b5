import type { EventBus } from '@trove/bus';
import { TOPICS, type BillingEvent, type Plan } from '@trove/contracts';
import type { Db, Trx } from './schema';

/** A plan change to apply; the payment-provider fields left out keep what the row has. */
export interface PlanChange {
  tenant_id: string;
  plan: Plan;
  stripe_customer_id?: string | null;
  stripe_subscription_id?: string | null;
  billing_period_end?: Date | null;
  /** When the change happened: a change older than the one the row holds is ignored (events may arrive out of order). */
  changed_at: Date;
}

/** The tenant's plan row as it stands after setTenantPlan. */
export interface TenantPlan {
  tenant_id: string;
  plan: Plan;
  stripe_customer_id: string | null;
  stripe_subscription_id: string | null;
  billing_period_end: Date | null;
  plan_changed_at: Date;
}

/**
 * Sets the tenant's plan and, in the same transaction, announces it on billing.events (the transactional outbox),
 * so auth and every gateway apply it at once, or not at all if the transaction rolls back. A change older than the
 * one the row already holds changes nothing and announces nothing: the answer is then undefined.
 */
export async function setTenantPlan(trx: Trx, bus: EventBus, change: PlanChange): Promise<TenantPlan | undefined> {
  const tenantId = change.tenant_id.toLowerCase();
  const provider = {
    ...(change.stripe_customer_id !== undefined && { stripe_customer_id: change.stripe_customer_id }),
    ...(change.stripe_subscription_id !== undefined && { stripe_subscription_id: change.stripe_subscription_id }),
    ...(change.billing_period_end !== undefined && { billing_period_end: change.billing_period_end }),
  };
  const row = await trx
    .insertInto('billing.tenant_plans')
    .values({ tenant_id: tenantId, plan: change.plan, plan_changed_at: change.changed_at, ...provider })
    .onConflict((oc) =>
      oc
        .column('tenant_id')
        .doUpdateSet({ plan: change.plan, plan_changed_at: change.changed_at, updated_at: new Date(), ...provider })
        .where('billing.tenant_plans.plan_changed_at', '<=', change.changed_at),
    )
    .returning(['tenant_id', 'plan', 'stripe_customer_id', 'stripe_subscription_id', 'billing_period_end', 'plan_changed_at'])
    .executeTakeFirst();
  if (!row) return undefined;
  const payload: BillingEvent = { kind: 'plan_changed', tenant_id: tenantId, plan: row.plan, changed_at: row.plan_changed_at.toISOString() };
  await bus.publishInTransaction(trx, [{ topic: TOPICS.billingEvents, key: tenantId, payload }]);
  return row;
}

/** The tenant's plan row; undefined for a tenant billing never set a plan for (it is on the mode's default). */
export async function tenantPlanOf(db: Db | Trx, tenantId: string): Promise<TenantPlan | undefined> {
  return db
    .selectFrom('billing.tenant_plans')
    .select(['tenant_id', 'plan', 'stripe_customer_id', 'stripe_subscription_id', 'billing_period_end', 'plan_changed_at'])
    .where('tenant_id', '=', tenantId.toLowerCase())
    .executeTakeFirst();
}
