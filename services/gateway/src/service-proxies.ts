import { Agent, type ClientRequest } from 'node:http';
import type { Express, Request, RequestHandler as ExpressHandler, Response } from 'express';
import CircuitBreaker from 'opossum';
import { createProxyMiddleware, type RequestHandler } from 'http-proxy-middleware';
import {
  ERRORS,
  IDENTITY_HEADER,
  REQUEST_ID_HEADER,
  isUnavailableStatus,
  observeBreaker,
  serviceUrl,
  signIdentity,
  type Config,
  type HttpMetrics,
  type ServiceName,
} from '@trove/platform';
import type { ServiceContext } from '@trove/runtime';
import { ANONYMOUS_IDENTITY } from './authenticate';
import { upstreamPath } from './domain/route-table';

/** Resolves when the upstream's response headers arrive; rejects when it cannot be reached or fails. */
interface Pending {
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * The upstream answered that it cannot serve anything right now (502, 503, 504): counts against its breaker, while
 * its response still streams to the client.
 */
class UpstreamServerError extends Error {}

/** How long a client may keep sending a body its service has already answered before its connection is closed. */
const DRAIN_AFTER_ANSWER_MS = 5_000;

export interface ServiceProxiesOptions {
  config: Config;
  services: ServiceName[];
  /** Called with each upstream response before it is passed on, with the public path forwarded (no query string). */
  onResponse?: (service: ServiceName, req: Request, status: number, path: string) => void;
  /** The services of this process, whose apps are handed the request itself instead of a copy over HTTP. */
  local?: ServiceContext['local'];
  /** Where each upstream's breaker reports its state and openings (observeBreaker). */
  registry?: HttpMetrics['registry'];
}

interface Upstream {
  proxy: RequestHandler<Request, Response>;
  breaker: CircuitBreaker<[Request, Response], void>;
}

/**
 * One streaming proxy per upstream service, each behind its own circuit breaker; a service of this process is handed
 * the request itself instead (handOver). Request and response bodies are piped, never buffered. The forwarded request
 * carries the signed internal identity and the request id, and neither the caller's Authorization nor its X-Tenant-Id.
 */
export class ServiceProxies {
  private readonly upstreams = new Map<ServiceName, Upstream>();
  private readonly pending = new WeakMap<Request, Pending>();
  /** The normalised public path (and query string) each request is forwarded to, as the route table matched it. */
  private readonly paths = new WeakMap<Request, string>();
  /** Each request's own request to its service, whose connection releaseAfter decides on. */
  private readonly outgoing = new WeakMap<Request, ClientRequest>();
  /**
   * Connections to services are kept open and reused (without an agent, http-proxy opens one per request and asks the
   * service to close it). An idle one is dropped after 10 s, well before a service drops it (65 s), so a request
   * never races a closing connection. While a request is in flight, http-proxy's proxyTimeout governs the socket.
   */
  private readonly agent = new Agent({ keepAlive: true, maxFreeSockets: 64, timeout: 10_000 });

  constructor(private readonly opts: ServiceProxiesOptions) {
    for (const service of opts.services) this.upstreams.set(service, this.create(service));
  }

  /**
   * Forwards the request to `path` (the normalised public path and query string; the version root is stripped
   * here), never to the path as the client spelled it. A service that is down, or whose breaker is open, gives 503
   * naming it.
   */
  async forward(service: ServiceName, req: Request, res: Response, path: string): Promise<void> {
    const upstream = this.upstreams.get(service);
    if (!upstream) throw new Error(`No upstream configured for ${service}`);
    this.paths.set(req, path);
    // The gateway's server has already answered 100 Continue. Forwarded, Expect makes Node send the upstream
    // request's headers at once, before the identity token is added, so the service would refuse it (curl sends
    // Expect for any upload over 1 MB).
    delete req.headers.expect;
    try {
      await upstream.breaker.fire(req, res);
    } catch (err) {
      if (err instanceof UpstreamServerError) return;
      if (res.headersSent) {
        res.destroy();
        return;
      }
      req.log.warn({ service, reason: (err as Error).message }, 'upstream unavailable');
      throw ERRORS.unavailable(`The ${service} service is unavailable; try again shortly`);
    }
  }

  shutdown(): void {
    for (const u of this.upstreams.values()) u.breaker.shutdown();
    this.agent.destroy();
  }

  /**
   * Keeps a connection to a service in the pool only when the exchange on it is known to be over. A service that
   * answers before it has the whole body (or refuses a request with a body: it may not have read all of it) can
   * still have unread bytes of it on that connection, and would read the next request, another tenant's, as their
   * continuation or not at all. Such a connection is closed once the answer has arrived. The client's remaining
   * body is no longer sent on, but read and dropped, so the client can send its next request on the same
   * connection; one that goes on sending long after its answer is disconnected.
   */
  private releaseAfter(proxyReq: ClientRequest, req: Request, res: Response, status: number): void {
    const bodyUnsent = !req.complete || !proxyReq.writableFinished;
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (!bodyUnsent && !(hasBody && status >= 400)) return;
    proxyReq.shouldKeepAlive = false;
    // Once the answer is passed on (or its client has gone), even if unsent body bytes still hold the socket.
    res.once('close', () => proxyReq.destroy());
    if (req.complete) return;
    req.unpipe(proxyReq);
    req.resume();
    res.once('finish', () => disconnectIfStillSending(req));
  }

  /**
   * Hands the request itself to the app of a service in this process: no socket and no copy, the body read by the
   * service as it arrives and its answer written straight to the client, so uploads and MCP's event streams stream as
   * over HTTP. What the proxy does to a forwarded request is done to this one: the path the route table matched (and
   * the query string), no Authorization, X-Tenant-Id or hop-by-hop headers, the signed identity without a caller,
   * the request id. The service's own error handler answers whatever it throws.
   */
  private handOver(service: ServiceName, app: Express | undefined, req: Request, res: Response): void {
    if (!app) return this.settle(req, new Error(`${service} is not running in this process`));
    const path = this.paths.get(req)!;
    for (const name of ['authorization', 'x-tenant-id', ...hopByHopHeaders(req.headers.connection)]) delete req.headers[name];
    req.headers[IDENTITY_HEADER] = this.identityToken(req);
    req.headers[REQUEST_ID_HEADER] = req.id;
    req.url = upstreamPath(path);

    // The service's headers are its answer, as an upstream's response is the proxy's.
    const answered = (status: number) => {
      this.opts.onResponse?.(service, req, status, path.split('?')[0]!);
      this.settle(req, isUnavailableStatus(status) ? new UpstreamServerError(`${service} answered ${status}`) : undefined);
    };
    const writeHead = res.writeHead;
    res.writeHead = function (this: Response, ...args: Parameters<Response['writeHead']>) {
      res.writeHead = writeHead;
      answered(args[0]);
      return writeHead.apply(this, args);
    } as Response['writeHead'];
    // A service that answers before reading the whole body: the rest is read and dropped, as after a proxied answer.
    res.once('finish', () => {
      if (req.complete) return;
      req.unpipe();
      req.resume();
      disconnectIfStillSending(req);
    });

    // Both apps label their request metrics with req.route when the answer finishes, the gateway's listener first:
    // each is shown its own route (the service's router replaced the gateway's).
    const gatewayRoute = req.route;
    let serviceRoute: unknown;
    res.prependListener('finish', () => {
      serviceRoute = req.route;
      req.route = gatewayRoute;
    });
    res.on('finish', () => {
      req.route = serviceRoute;
    });

    // express 5 gives the request and response its app's prototypes; should the service decline the request (its
    // `next`), they are the gateway's again before the gateway answers 503.
    const requestPrototype = Object.getPrototypeOf(req) as object;
    const responsePrototype = Object.getPrototypeOf(res) as object;
    (app as unknown as ExpressHandler)(req, res, (err?: unknown) => {
      Object.setPrototypeOf(req, requestPrototype);
      Object.setPrototypeOf(res, responsePrototype);
      this.settle(req, err instanceof Error ? err : new Error(`${service} declined the request`));
    });
  }

  /** The identity a forwarded request carries: never a service's own call, so no /internal route answers it. */
  private identityToken(req: Request): string {
    const identity = { ...(req.identity ?? ANONYMOUS_IDENTITY), caller: undefined };
    return signIdentity(identity, this.opts.config.INTERNAL_TOKEN_SECRET, this.opts.config.INTERNAL_TOKEN_TTL_SECONDS);
  }

  private settle(req: Request, err?: Error): void {
    const p = this.pending.get(req);
    if (!p) return;
    this.pending.delete(req);
    if (err) p.reject(err);
    else p.resolve();
  }

  private create(service: ServiceName): Upstream {
    const { config } = this.opts;
    const proxy = createProxyMiddleware<Request, Response>({
      // Looked up per request, so a changed <NAME>_URL takes effect without rebuilding the proxy.
      router: () => serviceUrl(config, service),
      changeOrigin: true,
      xfwd: true,
      // Without an agent, http-proxy opens a new connection per request and asks the service to close it.
      agent: this.agent,
      // Inactivity on the upstream socket until it answers, so a long upload that keeps streaming is not cut off.
      // Uploads answer only once every chunk is stored, which for a large file can take minutes after its last byte;
      // a connector pull answers once the pulled rows are stored, the same way.
      proxyTimeout: service === 'ingestion' || service === 'connector' ? config.UPLOAD_TIMEOUT_MS : config.UPSTREAM_TIMEOUT_MS,
      pathRewrite: (_path, req) => upstreamPath(this.paths.get(req)!),
      on: {
        proxyReq: (proxyReq, req) => {
          this.outgoing.set(req, proxyReq);
          proxyReq.removeHeader('authorization');
          proxyReq.removeHeader('x-tenant-id');
          // Hop-by-hop headers are the client's business with the gateway (RFC 9110 7.6.1). http-proxy passes them on
          // when it has an agent, so a client's Connection: close closed the pooled service connection after the answer,
          // and a service still reading the rest of a refused body lost its answer with it.
          for (const name of hopByHopHeaders(req.headers.connection)) proxyReq.removeHeader(name);
          proxyReq.setHeader(IDENTITY_HEADER, this.identityToken(req));
          proxyReq.setHeader(REQUEST_ID_HEADER, req.id);
        },
        proxyRes: (proxyRes, req, res) => {
          // proxyTimeout bounds the wait for an answer; once it streams (MCP's event streams may idle for long),
          // the response is the upstream's and the client's business.
          proxyRes.socket?.setTimeout(0);
          // An upstream that dies mid-body must not leave the client waiting for the rest.
          proxyRes.once('close', () => {
            if (!proxyRes.complete) res.destroy();
          });
          const status = proxyRes.statusCode ?? 502;
          const proxyReq = this.outgoing.get(req);
          if (proxyReq) this.releaseAfter(proxyReq, req, res, status);
          this.opts.onResponse?.(service, req, status, this.paths.get(req)!.split('?')[0]!);
          this.settle(req, isUnavailableStatus(status) ? new UpstreamServerError(`${service} answered ${status}`) : undefined);
        },
        error: (err, req, res) => {
          if (this.pending.has(req as Request)) this.settle(req as Request, err);
          else res.destroy();
        },
      },
    });
    const breaker = new CircuitBreaker<[Request, Response], void>(
      (req, res) =>
        new Promise<void>((resolve, reject) => {
          this.pending.set(req, { resolve, reject });
          // A client that goes away before the upstream answers is not the upstream's failure.
          res.once('close', () => this.settle(req));
          const local = this.opts.local?.(service);
          if (local) this.handOver(service, local(), req, res);
          else void proxy(req, res, (err?: unknown) => this.settle(req, err instanceof Error ? err : new Error('proxy declined the request')));
        }),
      {
        name: service,
        // http-proxy's proxyTimeout bounds a silent upstream; a whole-request limit would cut off long uploads.
        timeout: false,
        errorThresholdPercentage: 50,
        volumeThreshold: 5,
        resetTimeout: 5_000,
      },
    );
    if (this.opts.registry) observeBreaker(this.opts.registry, breaker, service);
    return { proxy, breaker };
  }
}

/** Closes the connection of a client that goes on sending a body long after its answer. */
function disconnectIfStillSending(req: Request): void {
  if (req.complete) return;
  const timer = setTimeout(() => req.socket.destroy(), DRAIN_AFTER_ANSWER_MS);
  timer.unref();
  req.once('end', () => clearTimeout(timer));
  req.once('close', () => clearTimeout(timer));
}

/** The hop-by-hop headers of a request: the fixed ones and those its Connection header names. */
function hopByHopHeaders(connection: string | undefined): string[] {
  const named = (connection ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean);
  return [...new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade', ...named])];
}
