import type { Logger } from '@trove/platform';
import type { Db } from '../shared/schema';

export type Settled = 'indexed' | 'failed' | 'pending';

interface Waiter {
  tenantId: string;
  version: number;
  resolve(status: Settled): void;
}

/**
 * Lets a write answer once search has acknowledged the version it wrote (docs/behaviour/records.md: POST /records answers indexed
 * and the record is found by the next search), or answer pending after a bounded wait when search is slow or down.
 *
 * The records.indexed consumer of this process reports each acknowledgement it applies. With several records
 * replicas another replica's consumer may apply it, so while anyone waits the table is also polled; the poll also
 * catches an acknowledgement applied between the write's commit and the wait.
 */
export class IndexingWaiter {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private pollTimer?: NodeJS.Timeout;
  private polling = false;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly pollMs = 100,
  ) {}

  /** Resolves with indexed or failed once `version` of the record is acknowledged, else pending after timeoutMs. */
  wait(tenantId: string, recordId: string, version: number, timeoutMs: number): Promise<Settled> {
    if (timeoutMs <= 0) return Promise.resolve('pending');
    return new Promise<Settled>((resolve) => {
      const set = this.waiters.get(recordId) ?? new Set<Waiter>();
      this.waiters.set(recordId, set);
      const timer = setTimeout(() => settle('pending'), timeoutMs);
      const waiter: Waiter = { tenantId, version, resolve: (status) => settle(status) };
      const settle = (status: Settled) => {
        clearTimeout(timer);
        set.delete(waiter);
        if (set.size === 0 && this.waiters.get(recordId) === set) this.waiters.delete(recordId);
        resolve(status);
      };
      set.add(waiter);
      this.schedulePoll(0);
    });
  }

  /** An acknowledgement this process applied. */
  acknowledged(recordId: string, version: number, status: 'indexed' | 'failed'): void {
    for (const waiter of [...(this.waiters.get(recordId) ?? [])]) {
      if (waiter.version === version) waiter.resolve(status);
    }
  }

  stop(): void {
    clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    for (const set of this.waiters.values()) for (const w of [...set]) w.resolve('pending');
  }

  private schedulePoll(delayMs: number): void {
    if (this.pollTimer || this.polling) return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = undefined;
      void this.poll();
    }, delayMs);
  }

  private async poll(): Promise<void> {
    if (this.waiters.size === 0) return;
    this.polling = true;
    try {
      const ids = [...this.waiters.keys()];
      const rows = await this.db
        .selectFrom('records.indexing')
        .select(['record_id', 'tenant_id', 'version', 'status'])
        .where('record_id', 'in', ids)
        .execute();
      for (const row of rows) {
        if (row.status !== 'indexed' && row.status !== 'failed') continue;
        for (const w of [...(this.waiters.get(row.record_id) ?? [])]) {
          if (w.tenantId === row.tenant_id && w.version === row.version) w.resolve(row.status);
        }
      }
    } catch (err) {
      this.logger.warn({ err }, 'polling indexing status failed');
    } finally {
      this.polling = false;
      if (this.waiters.size > 0) this.schedulePoll(this.pollMs);
    }
  }
}
