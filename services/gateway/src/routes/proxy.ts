import type { Router } from 'express';
import type { CountTally } from '@trove/bus';
import { usagePeriodOf } from '@trove/contracts';
import type { Authenticator } from '../authenticate';
import { limitClassOf } from '../domain/limits';
import { matchRoute } from '../domain/route-table';
import type { TenantLimits } from '../tenant-limits';
import type { Upstreams } from '../upstreams';

export interface ProxyDeps {
  authenticator: Authenticator;
  upstreams: Upstreams;
  /** Per-tenant limits of every authenticated request (key or portal). */
  limits: TenantLimits;
  /** Key-authenticated API calls per tenant and month, for usage.events. */
  requests: Pick<CountTally, 'count'>;
}

/**
 * Every public path: find its owner in the route table, authenticate as the route demands, and forward. The path is
 * normalised once here, and what is forwarded is exactly the path that was matched (plus the query string), so a
 * service can never route a request to anything the route table did not decide on.
 */
export function proxyRoutes(router: Router, deps: ProxyDeps): void {
  router.use(async (req, res, next) => {
    const match = matchRoute(req.path);
    if (!match) return next();
    // Labels the request metrics by route-table entry rather than 'unmatched'.
    req.route = { path: `${match.route.prefix}/*` };
    const access = match.route.access;
    req.identity = await deps.authenticator.identify(access, req);
    if (access.kind !== 'none') {
      await deps.limits.check(req.identity, limitClassOf(match.route), res);
      // What was let through counts as used; a refused call does not.
      if (access.kind === 'key') deps.requests.count(req.identity.tenantId, usagePeriodOf(new Date()));
    }
    const q = req.originalUrl.indexOf('?');
    await deps.upstreams.forward(match.route.service, req, res, match.path + (q === -1 ? '' : req.originalUrl.slice(q)));
  });
}
