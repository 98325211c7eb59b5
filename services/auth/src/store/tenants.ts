import type { Plan } from '@trove/contracts';
import type { AuthDb } from './schema';

/** Creates the tenant unless it exists; an existing tenant keeps its name and plan. */
export async function ensureTenant(db: AuthDb, tenant: { id: string; name: string | null; plan: Plan }): Promise<void> {
  await db
    .insertInto('auth.tenants')
    .values(tenant)
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/**
 * Applies a plan change billing announced, unless the tenant already has a later one (events may be redelivered, or
 * arrive out of order across partitions). A tenant auth does not know is left alone.
 */
export async function applyPlanChange(db: AuthDb, change: { tenantId: string; plan: Plan; changedAt: Date }): Promise<void> {
  await db
    .updateTable('auth.tenants')
    .set({ plan: change.plan, plan_changed_at: change.changedAt })
    .where('id', '=', change.tenantId)
    .where((eb) => eb.or([eb('plan_changed_at', 'is', null), eb('plan_changed_at', '<=', change.changedAt)]))
    .execute();
}
