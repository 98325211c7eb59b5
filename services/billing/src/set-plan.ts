import { createEventBus } from '@trove/bus';
import { PLANS, type Plan } from '@trove/contracts';
import { migrate, type Database } from '@trove/db';
import { fields, type Config, type Logger } from '@trove/platform';
import { migrations } from './migrations';
import type { Db } from './store/schema';
import { setTenantPlan } from './store/plans';

export interface SetPlanRequest {
  tenantId: string;
  plan: Plan;
}

/**
 * The `set-plan` command's input, checked before any database is opened. Self-hosted only: in the cloud plans come
 * from the payment provider, and a plan set by hand would be undone by its next event.
 */
export function setPlanRequest(config: Config, opts: { tenantId: string; plan: string }): SetPlanRequest {
  if (config.DEPLOYMENT_MODE === 'cloud') {
    throw new Error('set-plan is for self-hosted deployments; in the cloud a plan is set by the payment provider');
  }
  if (!fields.uuid.safeParse(opts.tenantId).success) throw new Error('The tenant id must be a UUID');
  if (!(PLANS as readonly string[]).includes(opts.plan)) throw new Error(`The plan must be one of ${PLANS.join(', ')}`);
  return { tenantId: opts.tenantId.toLowerCase(), plan: opts.plan as Plan };
}

/**
 * The `set-plan` command: an operator sets a tenant's plan without a running billing service. The change is
 * announced on billing.events like any other (the embedded log, or the outbox a running service's relay sends on),
 * so auth and the gateways apply it once they read it.
 */
export async function setPlanCommand(
  database: Database,
  config: Config,
  logger: Logger,
  request: SetPlanRequest,
): Promise<{ tenant_id: string; plan: Plan }> {
  const { tenantId, plan } = setPlanRequest(config, request);
  await migrate(database, 'billing', migrations);
  const bus = await createEventBus({ database, logger, kafkaBrokers: config.KAFKA_BROKERS, kafkaClientId: config.KAFKA_CLIENT_ID });
  try {
    const db: Db = database.db;
    await db.transaction().execute((trx) => setTenantPlan(trx, bus, { tenant_id: tenantId, plan, changed_at: new Date() }));
    return { tenant_id: tenantId, plan };
  } finally {
    await bus.close();
  }
}
