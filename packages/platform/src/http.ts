import { randomUUID } from 'node:crypto';
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Router } from 'express';
import { serviceAppEndpoints } from '@trove/contracts';
import { JSON_TYPES, bodyEncodingOf, noteBodyNotJson, undecodableBody, type BodyEncoding } from './body';
import { withinMs } from './deadline';
import { ERRORS, HttpError } from './errors';
import { IDENTITY_HEADER, hasScope, verifyIdentity, type Identity, type Scope } from './identity';
import { isInProcessConnection } from './in-process';
import { servedOnBehalf } from './on-behalf';
import { handle } from './serve';

/** The express Router every service registers its routes on (ServiceAppOptions.routes). */
export type { Router };
import type { ServiceName } from './config';
import type { Logger } from './logger';
import { METRICS_CONTENT_TYPE, createMetrics, renderMetrics, type HttpMetrics, type ProcessMetrics } from './metrics';

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
    log: Logger;
    identity?: Identity;
  }
}

export const REQUEST_ID_HEADER = 'x-request-id';

/** A dependency the service needs to be ready; throws (or rejects) when it is down. */
export type ReadinessCheck = () => Promise<void>;

export interface ServiceAppOptions {
  name: ServiceName;
  logger: Logger;
  /** Secret that verifies the gateway's internal identity token; omit only on the gateway itself. */
  internalTokenSecret?: string;
  jsonLimit?: string;
  readiness?: Record<string, ReadinessCheck>;
  /** A readiness check that has not answered after this long counts as down (default 5s). */
  readinessTimeoutMs?: number;
  /** Adds the service's own routes; they are mounted after the platform middleware. */
  routes: (router: Router) => void;
  metrics?: HttpMetrics;
  /** Paths that skip JSON parsing (streaming uploads). */
  rawBodyPaths?: RegExp[];
  /** Paths answered as other paths of this app, the query string kept (the gateway's versioned health paths). */
  aliases?: Record<string, string>;
}

function routeLabel(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route?.path;
  if (typeof route === 'string') return `${req.baseUrl}${route}`;
  return 'unmatched';
}

/** The identity the gateway established; services mount `requireIdentity` so this never fails in a handler. */
export function identityOf(req: Request): Identity {
  if (!req.identity) throw ERRORS.unauthorized('Missing internal identity');
  return req.identity;
}

/** Lets a request through when its identity holds one of the scopes (admin implies all). */
export function requireScope(...scopes: [Scope, ...Scope[]]): RequestHandler {
  return (req, _res, next) => {
    const identity = identityOf(req);
    if (!scopes.some((s) => hasScope(identity, s))) {
      return next(ERRORS.forbidden(`This key lacks the ${scopes.map((s) => `'${s}'`).join(' or ')} scope`));
    }
    next();
  };
}

/** The principal of a person signed in to the portal (a portal JWT the gateway verified): `user:<user id>`. */
export const PORTAL_PRINCIPAL_PREFIX = 'user:';

/**
 * Lets a request through only when a person signed in to the portal made it. The gateway already refuses an API key
 * on portal routes; this keeps a service's /portal routes closed to any other identity as well.
 */
export function requirePortalUser(): RequestHandler {
  return (req, _res, next) => {
    const identity = identityOf(req);
    if (!identity.principal.startsWith(PORTAL_PRINCIPAL_PREFIX)) return next(ERRORS.unauthorized('Missing or invalid portal token'));
    next();
  };
}

/** The signed-in portal user's id; only under requirePortalUser. */
export function portalUserOf(req: Request): string {
  return identityOf(req).principal.slice(PORTAL_PRINCIPAL_PREFIX.length);
}

/** The tenant every query of a request is scoped to. */
export function tenantOf(req: Request): string {
  return identityOf(req).tenantId;
}

/** The 422 for a body that is not valid JSON, as every JSON route answers it. */
export function jsonDecodeError(message: string): HttpError {
  return ERRORS.validation([{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid', input: {}, ctx: { error: message } }]);
}

/**
 * Maps a body-parser failure to its answer (422 malformed JSON, 413 over the limit, 415 bad charset or encoding, 400 a
 * body its Content-Encoding cannot read); other errors pass. `encoding` is the request's Content-Encoding: body-parser
 * inflates the body itself and counts its limit in inflated bytes.
 */
export function bodyParserError(err: unknown, encoding: BodyEncoding = 'identity'): unknown {
  const e = err as { type?: string; limit?: number; message?: string; status?: number } | undefined;
  if (e?.type === 'entity.parse.failed') return jsonDecodeError(e.message ?? 'invalid JSON');
  if (e?.type === 'entity.too.large') {
    const inflated = encoding === 'identity' ? '' : ` once inflated (Content-Encoding: ${encoding})`;
    return ERRORS.payloadTooLarge(`Request body exceeds the limit of ${e.limit} bytes${inflated}`);
  }
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return ERRORS.unsupportedMediaType(e.message ?? 'Unsupported encoding');
  }
  // body-parser passes the inflater's own failure on as a 400 without a type.
  if (e?.type === undefined && e?.status === 400 && encoding !== 'identity') return undecodableBody(encoding);
  return err;
}

/**
 * A JSON body parser with its own size limit and the answers above; routes exempt from the app-wide one use it too.
 * The body may come in any of BODY_ENCODINGS (415 otherwise); the limit counts its inflated bytes. A body of another
 * media type is left unread and noted, for a route that reads JSON to refuse (noteBodyNotJson).
 */
export function jsonBody(limit: string): RequestHandler {
  const parse = express.json({ limit, type: JSON_TYPES });
  return (req, res, next) => {
    noteBodyNotJson(req);
    let encoding: BodyEncoding = 'identity';
    try {
      // Only a body the parser would read is asked about its encoding.
      if (req.is(JSON_TYPES)) encoding = bodyEncodingOf(req);
    } catch (err) {
      return next(err);
    }
    parse(req, res, (err?: unknown) => next(err === undefined ? undefined : bodyParserError(err, encoding)));
  };
}

/**
 * A client error raised by express or a body parser rather than by our code: http-errors marks those safe to show
 * with `expose`, and the router's URIError for a path that is not valid percent-encoding carries status 400. They are
 * the client's fault, so they answer their 4xx instead of an unexpected 500.
 */
function exposedClientError(err: unknown): HttpError | undefined {
  const e = err as { status?: unknown; expose?: unknown; message?: unknown };
  if (typeof e?.status !== 'number' || e.status < 400 || e.status > 499) return undefined;
  if (e.expose !== true && !(err instanceof URIError)) return undefined;
  return new HttpError(e.status, 'bad_request', typeof e.message === 'string' && e.message ? e.message : 'Bad request');
}

const INTERNAL_ROOT = /^[/\\]*internal(?:[/\\]|$)/i;

/**
 * Whether a path could reach a service's /internal routes: express routes case-insensitively, and the path is
 * also checked percent-decoded and with repeated (or back-) slashes, so no spelling of it gets past.
 */
export function isInternalPath(path: string): boolean {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A malformed escape: express cannot route it either, and the raw spelling is checked all the same.
  }
  return INTERNAL_ROOT.test(path) || INTERNAL_ROOT.test(decoded);
}

/** Rewrites the request's path when it is one of `aliases` (a trailing slash ignored), keeping the query string. */
function aliased(req: Request, aliases: Record<string, string>): void {
  const q = req.url.indexOf('?');
  const path = (q === -1 ? req.url : req.url.slice(0, q)).replace(/(.)\/$/, '$1');
  const alias = aliases[path];
  if (alias) req.url = alias + (q === -1 ? '' : req.url.slice(q));
}

/**
 * Adds bindings to the request's logger (`req.log`) without making it: the child is made from the logger the request
 * had, the first time something logs.
 */
export function bindRequestLog(req: Request, bindings: Record<string, unknown>): void {
  const before = Object.getOwnPropertyDescriptor(req, 'log');
  lazyLog(req, () => (before?.get ? (before.get.call(req) as Logger) : (before?.value as Logger)), () => bindings);
}

/**
 * Gives the request its logger (`req.log`) with these bindings, made the first time something logs: most requests
 * never do, and a pino child costs its bindings' serialisation on every request. Assigning `req.log` replaces it.
 */
function lazyLog(req: Request, logger: Logger | (() => Logger), bindings: () => Record<string, unknown>): void {
  let log: Logger | undefined;
  Object.defineProperty(req, 'log', {
    configurable: true,
    enumerable: true,
    get: () => (log ??= (typeof logger === 'function' ? logger() : logger).child(bindings())),
    set: (value: Logger) => {
      log = value;
    },
  });
}

/**
 * Renders any error as `{detail}`; unexpected ones are logged with the request id and answer 500 without internals. A
 * refusal of a limit (HttpError.limit) is counted in `metrics` as it is answered.
 */
export function errorHandler(metrics?: HttpMetrics): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) {
      req.log?.error({ err }, 'error after response started');
      res.destroy();
      return;
    }
    // A client that dropped its connection mid-request (the request stream fails with 'aborted') is gone: there is no
    // one to answer, and it is not the service's fault.
    if (req.destroyed && req.socket?.destroyed && !req.complete) {
      req.log?.info({ reason: (err as Error)?.message }, 'client went away before the request was read');
      return;
    }
    const httpError = err instanceof HttpError ? err : exposedClientError(err);
    if (!httpError) {
      (req.log ?? console).error({ err, requestId: req.id }, 'unhandled error');
    }
    const e = httpError ?? ERRORS.internal();
    if (e.limit) metrics?.refusals.inc({ limit: e.limit });
    for (const [k, v] of Object.entries(e.headers)) res.setHeader(k, v);
    res.status(e.status).json(e.body());
  };
}

/** The service's own metrics of an app made by createServiceApp (none for any other app). */
export function metricsOf(app: express.Express): HttpMetrics | undefined {
  return app.locals.metrics as HttpMetrics | undefined;
}

function processMetricsOf(app: express.Express): ProcessMetrics | undefined {
  return app.locals.processMetrics as ProcessMetrics | undefined;
}

/**
 * Makes the app's /metrics serve what its process serves (the composition root hands every app of a process the same
 * ProcessMetrics): the metrics of every service in it, or, with METRICS_ENABLED=false, a 404.
 */
export function serveProcessMetrics(app: express.Express, served: ProcessMetrics): void {
  app.locals.processMetrics = served;
}

/**
 * Turns the access log of an app made by createServiceApp on or off (ACCESS_LOG; on unless said): the composition root
 * sets it for every app of its process.
 */
export function setAccessLog(app: express.Express, enabled: boolean): void {
  app.locals.accessLog = enabled;
}

/** Requests an app of this process has taken up already: the gateway hands a request itself to a service in process. */
const takenUp = new WeakSet<Request>();

/**
 * The probes' and scrapers' paths (after the versioned aliases): an orchestrator asks them every few seconds of every
 * pod, so their lines are at debug, where they do not bury the requests of people.
 */
const PROBE_PATHS = new Set(['/health', '/health/ready', '/metrics']);

/**
 * The access log line of a request once its answer is done (or its client gone): method, route pattern (the path only
 * when no route matched; never the query string), status, duration, request id and tenant; no header and no body.
 */
function accessLine(req: Request, status: number, route: string, startedNs: bigint, finished: boolean): Record<string, unknown> {
  const line: Record<string, unknown> = {
    method: req.method,
    route,
    status,
    durationMs: Math.round(Number(process.hrtime.bigint() - startedNs) / 1e5) / 10,
    requestId: req.id,
  };
  if (route === 'unmatched') line.path = req.path;
  const identity = req.identity;
  if (identity && identity.principal !== 'anonymous') line.tenantId = identity.tenantId;
  if (!finished) line.aborted = true;
  return line;
}

/**
 * Builds a service's express app: request ids, metrics, access log, health, the internal identity check, JSON body limits,
 * the service's routes and one error handler. It never listens; the launcher does.
 */
export function createServiceApp(opts: ServiceAppOptions): express.Express {
  const app = express();
  const metrics = opts.metrics ?? createMetrics(opts.name);
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.locals.metrics = metrics;

  const aliases = opts.aliases;
  app.use((req, res, next) => {
    if (aliases) aliased(req, aliases);
    const incoming = req.get(REQUEST_ID_HEADER);
    req.id = incoming && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    lazyLog(req, opts.logger, () => ({ requestId: req.id }));
    res.setHeader('X-Request-Id', req.id);
    const started = process.hrtime.bigint();
    // One info line per user request in a process: the first app to take a request up logs it at info; a service
    // handed the same request in process (the gateway's), or called by another service of the process over an
    // in-memory connection, logs it at debug (docs/observability.md, "Access log").
    const level = takenUp.has(req) || isInProcessConnection(req.socket) || PROBE_PATHS.has(req.path) ? 'debug' : 'info';
    takenUp.add(req);
    let route: string | undefined;
    res.on('finish', () => {
      route = routeLabel(req);
      const labels = { method: req.method, route, status: String(res.statusCode) };
      metrics.requests.inc(labels);
      metrics.duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    res.on('close', () => {
      if (app.locals.accessLog === false || !opts.logger.isLevelEnabled(level)) return;
      // The route as this app saw it when its answer finished (a service in process sees its own afterwards).
      opts.logger[level](accessLine(req, res.statusCode, route ?? routeLabel(req), started, res.writableFinished), 'request completed');
    });
    next();
  });

  const own = serviceAppEndpoints(opts.name);
  handle(app, own.health, (_req, res) => {
    res.json({ status: 'ok', service: opts.name });
  });
  handle(app, own.ready, async (_req, res) => {
    const dependencies: Record<string, 'up' | 'down'> = {};
    const down: string[] = [];
    await Promise.all(
      Object.entries(opts.readiness ?? {}).map(async ([name, check]) => {
        try {
          // Within the timeout, so one hung dependency cannot hang the readiness probe.
          const ms = opts.readinessTimeoutMs ?? 5_000;
          await withinMs(Promise.resolve().then(check), ms, `no answer within ${ms} ms`);
          dependencies[name] = 'up';
        } catch {
          dependencies[name] = 'down';
          down.push(name);
        }
      }),
    );
    if (down.length > 0) {
      res.status(503).json({ detail: `${down.sort().join(', ')} ${down.length === 1 ? 'is' : 'are'} down`, status: 'unavailable', dependencies });
      return;
    }
    res.json({ status: 'ready', service: opts.name, dependencies });
  });
  handle(app, own.metrics, async (req, res, next) => {
    // What the process serves (serveProcessMetrics), or, for an app on its own, its own registry.
    const served = processMetricsOf(app) ?? { enabled: true, registries: [metrics.registry] };
    if (!served.enabled) return next(ERRORS.notFound(`No route for ${req.method} ${req.path}`));
    res.setHeader('Content-Type', METRICS_CONTENT_TYPE);
    res.send(await renderMetrics(served.registries));
  });

  if (opts.internalTokenSecret) {
    const secret = opts.internalTokenSecret;
    app.use((req, _res, next) => {
      const identity = verifyIdentity(req.get(IDENTITY_HEADER), secret);
      if (!identity) return next(ERRORS.unauthorized('Missing or invalid internal identity token'));
      req.identity = identity;
      lazyLog(req, opts.logger, () => ({ requestId: req.id, tenantId: identity.tenantId, principal: identity.principal }));
      // Internal routes serve other services' calls only. Whatever reached a service from outside (through the
      // gateway or around it) answers as an unknown route would, so nothing about them is revealed.
      if (!identity.caller && isInternalPath(req.path)) return next(ERRORS.notFound(`No route for ${req.method} ${req.path}`));
      next();
    });
  }

  const json = jsonBody(opts.jsonLimit ?? '2mb');
  app.use((req, res, next) => {
    if (opts.rawBodyPaths?.some((p) => p.test(req.path))) return next();
    json(req, res, next);
  });
  // After the body is read: a body parser resumes in the socket's context, which would lose the tenant.
  app.use(servedOnBehalf((req) => req.identity?.tenantId));

  const router = express.Router();
  opts.routes(router);
  app.use(router);

  app.use((req, _res, next) => next(ERRORS.notFound(`No route for ${req.method} ${req.path}`)));
  app.use(errorHandler(metrics));
  return app;
}
