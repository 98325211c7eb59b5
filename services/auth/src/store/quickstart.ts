import { sql } from 'kysely';
import type { ProvenStep, QuickstartStep } from '../domain/quickstart';
import type { AuthDb, Db } from './schema';

/** The first proof seen of a quickstart step. */
export interface StepProof {
  tenantId: string;
  step: ProvenStep;
  at: string;
}

/** Records the first proof of each step among a batch's; a step already completed keeps its first completion. */
export async function applyProofs(db: Db, proofs: StepProof[]): Promise<void> {
  if (proofs.length === 0) return;
  await db
    .insertInto('auth.quickstart_steps')
    .values(firstProofs(proofs).map((p) => ({ tenant_id: p.tenantId, step: p.step, completed_at: p.at })))
    .onConflict((oc) => oc.columns(['tenant_id', 'step']).doNothing())
    .execute();
}

/** The earliest proof of each tenant's step among a batch's. */
function firstProofs(proofs: StepProof[]): StepProof[] {
  const first = new Map<string, StepProof>();
  for (const p of proofs) {
    const key = `${p.tenantId}\u0000${p.step}`;
    const seen = first.get(key);
    if (!seen || Date.parse(p.at) < Date.parse(seen.at)) first.set(key, p);
  }
  return [...first.values()];
}

/**
 * When each quickstart step was completed, for the steps that were: the first key is auth's own (the oldest key the
 * tenant ever had, revoked or not); the others as their first usage.events proof recorded them.
 */
export async function completedSteps(db: AuthDb, tenantId: string): Promise<Map<QuickstartStep, Date>> {
  const [firstKey, proven] = await Promise.all([
    db.selectFrom('auth.api_keys').select(sql<Date | null>`min(created_at)`.as('at')).where('tenant_id', '=', tenantId).executeTakeFirst(),
    db.selectFrom('auth.quickstart_steps').select(['step', 'completed_at']).where('tenant_id', '=', tenantId).execute(),
  ]);
  const steps = new Map<QuickstartStep, Date>(proven.map((r) => [r.step, new Date(r.completed_at)]));
  if (firstKey?.at) steps.set('create_api_key', new Date(firstKey.at));
  return steps;
}
