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
