import type { Router } from 'express';
import type { Authenticator } from '../authenticate';
import { matchRoute } from '../domain/route-table';
import type { Upstreams } from '../upstreams';

/** Every public path: find its owner in the route table, authenticate as the route demands, and forward. */
export function proxyRoutes(router: Router, deps: { authenticator: Authenticator; upstreams: Upstreams }): void {
  router.use(async (req, res, next) => {
    const route = matchRoute(req.path);
    if (!route) return next();
    // Labels the request metrics by route-table entry rather than 'unmatched'.
    req.route = { path: `${route.prefix}/*` };
    req.identity = await deps.authenticator.identify(route.access, req);
    await deps.upstreams.forward(route.service, req, res);
  });
}
