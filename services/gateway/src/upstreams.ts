import { Agent } from 'node:http';
import type { Request, Response } from 'express';
import CircuitBreaker from 'opossum';
import { createProxyMiddleware, type RequestHandler } from 'http-proxy-middleware';
import { ERRORS, IDENTITY_HEADER, REQUEST_ID_HEADER, serviceUrl, signIdentity, type Config, type ServiceName } from '@trove/platform';
import { ANONYMOUS_IDENTITY } from './authenticate';
import { upstreamPath } from './domain/route-table';

/** Resolves when the upstream's response headers arrive; rejects when it cannot be reached or fails. */
interface Pending {
  resolve: () => void;
  reject: (err: Error) => void;
}

/** The upstream answered 5xx: counts against its breaker, while its response still streams to the client. */
class UpstreamServerError extends Error {}

export interface UpstreamsOptions {
  config: Config;
  services: ServiceName[];
  /** Called with each upstream response before it is passed on. */
  onResponse?: (service: ServiceName, req: Request, status: number) => void;
}

interface Upstream {
  proxy: RequestHandler<Request, Response>;
  breaker: CircuitBreaker<[Request, Response], void>;
}

/**
 * One streaming proxy per upstream service, each behind its own circuit breaker. Request and response bodies are
 * piped, never buffered. The forwarded request carries the signed internal identity and the request id, and
 * neither the caller's Authorization nor its X-Tenant-Id.
 */
export class Upstreams {
  private readonly upstreams = new Map<ServiceName, Upstream>();
  private readonly pending = new WeakMap<Request, Pending>();
  /**
   * Connections to services are kept open and reused (without an agent, http-proxy opens one per request and asks the
   * service to close it). An idle one is dropped after 10 s, well before a service drops it (65 s), so a request
   * never races a closing connection. While a request is in flight, http-proxy's proxyTimeout governs the socket.
   */
  private readonly agent = new Agent({ keepAlive: true, maxFreeSockets: 64, timeout: 10_000 });

  constructor(private readonly opts: UpstreamsOptions) {
    for (const service of opts.services) this.upstreams.set(service, this.create(service));
  }

  /** Forwards the request; a service that is down, or whose breaker is open, gives 503 naming it. */
  async forward(service: ServiceName, req: Request, res: Response): Promise<void> {
    const upstream = this.upstreams.get(service);
    if (!upstream) throw new Error(`No upstream configured for ${service}`);
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
      // Uploads answer only once every chunk is stored, which for a large file can take minutes after its last byte.
      proxyTimeout: service === 'ingestion' ? config.UPLOAD_TIMEOUT_MS : config.UPSTREAM_TIMEOUT_MS,
      pathRewrite: (path) => upstreamPath(path),
      on: {
        proxyReq: (proxyReq, req) => {
          proxyReq.removeHeader('authorization');
          proxyReq.removeHeader('x-tenant-id');
          proxyReq.setHeader(
            IDENTITY_HEADER,
            signIdentity(req.identity ?? ANONYMOUS_IDENTITY, config.INTERNAL_TOKEN_SECRET, config.INTERNAL_TOKEN_TTL_SECONDS),
          );
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
          this.opts.onResponse?.(service, req, status);
          this.settle(req, status >= 500 ? new UpstreamServerError(`${service} answered ${status}`) : undefined);
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
          void proxy(req, res, (err?: unknown) => this.settle(req, err instanceof Error ? err : new Error('proxy declined the request')));
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
    return { proxy, breaker };
  }
}

