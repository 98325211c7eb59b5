import type { Request, RequestHandler, Router } from 'express';
import type { CountTally } from '@trove/bus';
import { usagePeriodOf } from '@trove/contracts';
import { clientKey, fairShare, identityOf, type FairScheduler } from '@trove/platform';
import { ANONYMOUS_IDENTITY, type Authenticator } from '../authenticate';
import { limitClassOf } from '../domain/limits';
import { matchRoute, type Match } from '../domain/route-table';
import { shareClassOf, type ShareClass } from '../domain/shares';
import type { TenantLimits } from '../tenant-limits';
import type { ServiceProxies } from '../service-proxies';

export interface ProxyDeps {
  authenticator: Authenticator;
  upstreams: ServiceProxies;
  /** Per-tenant limits of every authenticated request (key or portal). */
  limits: TenantLimits;
  /** Key-authenticated API calls per tenant and month, for usage.events. */
  requests: Pick<CountTally, 'count'>;
  /** One fair scheduler per kind of expensive work (domain/shares.ts). */
  shares: Record<ShareClass, FairScheduler>;
}

/** Whose share a request takes: its tenant's, or on the anonymous Open API its client address's. */
function shareKeyOf(req: Request): string {
  const identity = identityOf(req);
  return identity.principal === ANONYMOUS_IDENTITY.principal ? `address:${clientKey(req.ip)}` : `tenant:${identity.tenantId}`;
}

/**
 * Every public path: find its owner in the route table, authenticate as the route demands, and forward. The path is
 * normalised once here, and what is forwarded is exactly the path that was matched (plus the query string), so a
 * service can never route a request to anything the route table did not decide on.
 */
export function proxyRoutes(router: Router, deps: ProxyDeps): void {
  const matches = new WeakMap<Request, Match>();
  const scheduled = Object.fromEntries(
    Object.entries(deps.shares).map(([cls, scheduler]) => [cls, fairShare(scheduler, shareKeyOf)]),
  ) as Record<ShareClass, RequestHandler>;

  router.use(async (req, res, next) => {
    const match = matchRoute(req.path);
    if (!match) return next();
    matches.set(req, match);
    // Labels the request metrics by route-table entry rather than 'unmatched'.
    req.route = { path: `${match.route.prefix}/*` };
    const access = match.route.access;
    req.identity = await deps.authenticator.identify(access, req);
    if (access.kind !== 'none') {
      await deps.limits.check(req.identity, limitClassOf(match.route), res);
      // What was let through counts as used; a refused call does not.
      if (access.kind === 'key') deps.requests.count(req.identity.tenantId, usagePeriodOf(new Date()));
    }
    next();
  });

  // Expensive work waits for its turn among the tenants (or client addresses) asking for the same kind: a tenant that
  // sends more waits longer itself. A refusal answers 429 or 503 with Retry-After.
  router.use((req, res, next) => {
    const match = matches.get(req);
    const cls = match && shareClassOf(match.route);
    return cls ? scheduled[cls](req, res, next) : next();
  });

  router.use(async (req, res, next) => {
    const match = matches.get(req);
    if (!match) return next();
    const q = req.originalUrl.indexOf('?');
    await deps.upstreams.forward(match.route.service, req, res, match.path + (q === -1 ? '' : req.originalUrl.slice(q)));
  });
}
