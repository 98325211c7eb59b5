import { Cron } from 'croner';
import type { Logger } from '@trove/platform';
import type { PullService } from './pull-service';
import { claimScheduledRun, scheduledConnectors, type ScheduledConnector } from './store/connectors';
import type { Db } from './store/schema';

export interface SchedulerDeps {
  db: Db;
  pulls: PullService;
  logger: Logger;
  /** How often the schedules are read and due runs started. */
  tickMs?: number;
}

const DEFAULT_TICK_MS = 5_000;

/** When the connector's schedule next falls due after its last claimed run (or its creation). */
function dueAt(connector: ScheduledConnector): Date | null {
  try {
    return new Cron(connector.schedule!, { paused: true, timezone: 'UTC' }).nextRun(connector.schedule_slot ?? connector.created_at);
  } catch {
    return null;
  }
}

/**
 * Runs scheduled pulls in every replica: each tick reads every scheduled connector, and for each whose cron
 * expression (UTC) has fallen due since its last claimed run, claims the run in the database (one replica wins) and
 * pulls under the connector's lease (skipped when a pull of it is already running). Runs missed while no replica was
 * up are caught up once, not one by one.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private readonly running = new Set<Promise<unknown>>();

  constructor(private readonly deps: SchedulerDeps) {}

  start(): void {
    const tickMs = this.deps.tickMs ?? DEFAULT_TICK_MS;
    this.timer = setInterval(() => {
      this.ticking ??= this.tick().finally(() => (this.ticking = undefined));
    }, tickMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
    await Promise.allSettled([...this.running]);
  }

  /** One pass over the schedules; runs due pulls in the background. */
  async tick(now = new Date()): Promise<void> {
    let connectors: ScheduledConnector[];
    try {
      connectors = await scheduledConnectors(this.deps.db);
    } catch (err) {
      this.deps.logger.warn({ reason: (err as Error).message }, 'could not read connector schedules');
      return;
    }
    for (const c of connectors) {
      const due = dueAt(c);
      if (!due || due > now) continue;
      if (!(await claimScheduledRun(this.deps.db, c.id, c.schedule_slot).catch(() => false))) continue;
      const identity = { tenantId: c.tenant_id, principal: `connector:${c.id}`, scopes: ['upload' as const], ...(c.plan ? { plan: c.plan } : {}) };
      const run = this.deps.pulls
        .pull(c.tenant_id, c.id, identity)
        .catch((err: unknown) => this.deps.logger.error({ connectorId: c.id, reason: (err as Error).message }, 'scheduled pull failed'))
        .finally(() => this.running.delete(run));
      this.running.add(run);
    }
  }
}
