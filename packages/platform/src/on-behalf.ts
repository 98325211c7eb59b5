import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestHandler } from 'express';

const requestTenant = new AsyncLocalStorage<string>();

/**
 * Runs `work` (and everything it awaits) on behalf of a tenant: what shares a resource by tenant without being handed
 * one (the embedded database's one connection, `currentTenant`) reads it. createApp runs every request with an
 * identity this way.
 */
export function onBehalfOf<T>(tenantId: string, work: () => T): T {
  return requestTenant.run(tenantId, work);
}

/** The tenant on whose behalf the current code runs (onBehalfOf), or undefined for work no request asked for. */
export function currentTenant(): string | undefined {
  return requestTenant.getStore();
}

/** Requests of each tenant this process is serving now (every service of the process counts). */
const inFlight = new Map<string, number>();
let waiters: Array<{ tenantId: string; resolve: () => void }> = [];

function othersBusy(tenantId: string): boolean {
  for (const [t, n] of inFlight) if (t !== tenantId && n > 0) return true;
  return false;
}

/**
 * Serves the rest of the request on behalf of its tenant (onBehalfOf) and counts it as in flight until its answer is
 * sent or its client goes away (yieldToOthers reads the counts).
 */
export function servedOnBehalf(tenantOf: (req: Parameters<RequestHandler>[0]) => string | undefined): RequestHandler {
  return (req, res, next) => {
    const tenantId = tenantOf(req);
    if (tenantId === undefined) return next();
    inFlight.set(tenantId, (inFlight.get(tenantId) ?? 0) + 1);
    res.once('close', () => {
      const n = inFlight.get(tenantId)! - 1;
      if (n > 0) inFlight.set(tenantId, n);
      else inFlight.delete(tenantId);
      if (waiters.length === 0) return;
      const ready = waiters.filter((w) => !othersBusy(w.tenantId));
      if (ready.length === 0) return;
      waiters = waiters.filter((w) => !ready.includes(w));
      for (const w of ready) w.resolve();
    });
    onBehalfOf(tenantId, next);
  };
}

/**
 * Bulk work of a tenant (the chunks of a large upload) steps aside while this process serves another tenant's
 * request: resolves once no other tenant has a request in flight, or after `maxMs`, whichever is first. With `maxMs`
 * no longer than the bulk work's own last step, the bulk tenant keeps at least about half of the time, and the other
 * tenant's request finds the process free instead of behind that work.
 */
export function yieldToOthers(tenantId: string, maxMs: number): Promise<void> {
  if (maxMs <= 0 || !othersBusy(tenantId)) return Promise.resolve();
  return new Promise((resolve) => {
    const waiter = { tenantId, resolve: () => (clearTimeout(timer), resolve()) };
    const timer = setTimeout(() => {
      waiters = waiters.filter((w) => w !== waiter);
      resolve();
    }, maxMs);
    waiters.push(waiter);
  });
}
