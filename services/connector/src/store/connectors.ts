import { sql } from 'kysely';
import type { ConnectorRow, ConnectorsTable, Db } from './schema';

export type NewConnector = Omit<
  ConnectorsTable,
  'created_at' | 'last_pull_at' | 'last_pull_status' | 'last_pull_finished_at' | 'pull_owner' | 'pull_lease_until' | 'schedule_slot'
>;

export async function insertConnector(db: Db, row: NewConnector): Promise<ConnectorRow> {
  return db.insertInto('connector.connectors').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The tenant's connectors, oldest first. */
export async function listConnectors(db: Db, tenantId: string): Promise<ConnectorRow[]> {
  return db.selectFrom('connector.connectors').selectAll().where('tenant_id', '=', tenantId).orderBy('created_at').orderBy('id').execute();
}

export async function findConnector(db: Db, tenantId: string, id: string): Promise<ConnectorRow | undefined> {
  return db.selectFrom('connector.connectors').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

/** Deletes the connector and its stored credentials with it; false when the tenant has no such connector. */
export async function deleteConnector(db: Db, tenantId: string, id: string): Promise<boolean> {
  const r = await db.deleteFrom('connector.connectors').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export type ScheduledConnector = Pick<ConnectorRow, 'id' | 'tenant_id' | 'schedule' | 'schedule_slot' | 'created_at' | 'plan'>;

/**
 * Every connector with a schedule, for the scheduler (across tenants: it runs on the service's own behalf), with the
 * tenant's plan as billing last announced it, else as the last request about the connector carried it.
 */
export async function scheduledConnectors(db: Db): Promise<ScheduledConnector[]> {
  return db
    .selectFrom('connector.connectors as c')
    .leftJoin('connector.tenant_plans as p', 'p.tenant_id', 'c.tenant_id')
    .select(['c.id', 'c.tenant_id', 'c.schedule', 'c.schedule_slot', 'c.created_at', sql<string | null>`coalesce(p.plan, c.plan)`.as('plan')])
    .where('c.schedule', 'is not', null)
    .execute();
}

/** Records a plan billing announced, unless a later change of the tenant's is already recorded. */
export async function applyPlanChange(db: Db, change: { tenantId: string; plan: string; changedAt: Date }): Promise<void> {
  await db
    .insertInto('connector.tenant_plans')
    .values({ tenant_id: change.tenantId, plan: change.plan, changed_at: change.changedAt })
    .onConflict((oc) =>
      oc
        .column('tenant_id')
        .doUpdateSet({ plan: (eb) => eb.ref('excluded.plan'), changed_at: (eb) => eb.ref('excluded.changed_at') })
        .where('connector.tenant_plans.changed_at', '<=', change.changedAt),
    )
    .execute();
}

/**
 * Claims a due scheduled run: moves schedule_slot from the value this replica read to now, so of the replicas that
 * saw the run due, one claims it. False when another replica got there first.
 */
export async function claimScheduledRun(db: Db, id: string, seen: Date | null): Promise<boolean> {
  const r = await db
    .updateTable('connector.connectors')
    .set({ schedule_slot: sql<Date>`now()` })
    .where('id', '=', id)
    .where((eb) => (seen === null ? eb('schedule_slot', 'is', null) : eb('schedule_slot', '=', seen)))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * Takes the connector's pull lease for `owner` when no unexpired lease is held, in one conditional update, so of
 * any number of processes on the database one gets it. Answers the row when taken, 'busy' when held, undefined when
 * the tenant has no such connector.
 */
export async function takePullLease(db: Db, tenantId: string, id: string, owner: string, leaseMs: number, plan?: string): Promise<ConnectorRow | 'busy' | undefined> {
  const taken = await db
    .updateTable('connector.connectors')
    .set({
      pull_owner: owner,
      pull_lease_until: sql<Date>`now() + make_interval(secs => ${leaseMs / 1000})`,
      ...(plan ? { plan } : {}),
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where((eb) => eb.or([eb('pull_lease_until', 'is', null), eb('pull_lease_until', '<', sql<Date>`now()`)]))
    .returningAll()
    .executeTakeFirst();
  if (taken) return taken;
  return (await findConnector(db, tenantId, id)) ? 'busy' : undefined;
}

/** Extends a lease its owner still holds; false when it lost it (it lapsed and another process took it). */
export async function renewPullLease(db: Db, id: string, owner: string, leaseMs: number): Promise<boolean> {
  const r = await db
    .updateTable('connector.connectors')
    .set({ pull_lease_until: sql<Date>`now() + make_interval(secs => ${leaseMs / 1000})` })
    .where('id', '=', id)
    .where('pull_owner', '=', owner)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Ends the owner's lease and records the pull's outcome; a successful pull moves last_pull_at to its start. */
export async function finishPull(db: Db, id: string, owner: string, outcome: { status: 'completed' | 'failed'; startedAt: Date }): Promise<void> {
  await db
    .updateTable('connector.connectors')
    .set({
      pull_owner: null,
      pull_lease_until: null,
      last_pull_status: outcome.status,
      last_pull_finished_at: new Date(),
      ...(outcome.status === 'completed' ? { last_pull_at: outcome.startedAt } : {}),
    })
    .where('id', '=', id)
    .where('pull_owner', '=', owner)
    .execute();
}

/** Every connector's id and ciphertext, for re-encryption. */
export async function allCiphertexts(db: Db): Promise<{ id: string; connection_config: string }[]> {
  return db.selectFrom('connector.connectors').select(['id', 'connection_config']).orderBy('id').execute();
}

/** Replaces a ciphertext only if it is still the one read, so a concurrent change is never overwritten. */
export async function replaceCiphertext(db: Db, id: string, from: string, to: string): Promise<boolean> {
  const r = await db.updateTable('connector.connectors').set({ connection_config: to }).where('id', '=', id).where('connection_config', '=', from).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
