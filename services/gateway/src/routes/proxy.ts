import type { Router } from 'express';
import type { Authenticator } from '../authenticate';
import { matchRoute } from '../domain/route-table';
import type { Upstreams } from '../upstreams';

/**
 * Every public path: find its owner in the route table, authenticate as the route demands, and forward. The path is
 * normalised once here, and what is forwarded is exactly the path that was matched (plus the query string), so a
 * service can never route a request to anything the route table did not decide on.
 */
export function proxyRoutes(router: Router, deps: { authenticator: Authenticator; upstreams: Upstreams }): void {
  router.use(async (req, res, next) => {
    const match = matchRoute(req.path);
    if (!match) return next();
    // Labels the request metrics by route-table entry rather than 'unmatched'.
    req.route = { path: `${match.route.prefix}/*` };
    req.identity = await deps.authenticator.identify(match.route.access, req);
    const q = req.originalUrl.indexOf('?');
    await deps.upstreams.forward(match.route.service, req, res, match.path + (q === -1 ? '' : req.originalUrl.slice(q)));
  });
}
