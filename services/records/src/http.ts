import express, { type RequestHandler } from 'express';
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

/**
 * A JSON body parser with its own size limit, for a route exempt from the app-wide one (createServiceApp's
 * rawBodyPaths). Its errors answer as the app-wide parser's do: 422 json_invalid for malformed JSON, 413 over the limit.
 */
export function jsonBody(limit: string): RequestHandler {
  const parse = express.json({ limit, type: ['application/json', 'application/*+json'] });
  return (req, res, next) =>
    parse(req, res, (err?: unknown) => {
      const e = err as { type?: string; limit?: number; message?: string } | undefined;
      if (e?.type === 'entity.parse.failed') {
        return next(ERRORS.validation([{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid', input: {}, ctx: { error: e.message ?? 'invalid JSON' } }]));
      }
      if (e?.type === 'entity.too.large') return next(ERRORS.payloadTooLarge(`Request body exceeds the limit of ${e.limit} bytes`));
      if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') return next(ERRORS.unsupportedMediaType(e.message ?? 'Unsupported encoding'));
      next(err);
    });
}
