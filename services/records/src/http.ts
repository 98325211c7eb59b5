import type { RequestHandler } from 'express';
import { ERRORS, hasScope, identityOf, type Scope, type ServiceAppOptions } from '@trove/platform';

/** The express types as the platform's signatures use them. */
export type Router = Parameters<ServiceAppOptions['routes']>[0];
export type Request = Parameters<typeof identityOf>[0];

/** The tenant every query of a request is scoped to. */
export function tenantOf(req: Request): string {
  return identityOf(req).tenantId;
}

/** Lets a request through when its identity has any one of the scopes (admin implies all). */
export function requireAnyScope(scopes: Scope[]): RequestHandler {
  return (req, _res, next) => {
    const identity = identityOf(req);
    if (!scopes.some((s) => hasScope(identity, s))) return next(ERRORS.forbidden(`This key lacks the ${scopes.map((s) => `'${s}'`).join(' or ')} scope`));
    next();
  };
}
