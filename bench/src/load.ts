/** A cheap keep-alive HTTP client and the two measuring passes: sequential latency and throughput at a concurrency. */
import http from 'node:http';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export class HttpClient {
  private readonly agent: http.Agent;
  private readonly url: URL;

  constructor(base: string, maxSockets: number) {
    this.url = new URL(base);
    this.agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  }

  /** A POST of `body`, JSON unless `headers` name another content-type (a multipart upload's, say). */
  post(path: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Reply> {
    return this.send('POST', path, body, headers);
  }

  /** A request of any method; `body` JSON unless `headers` name another content-type (empty for a GET). */
  send(method: string, path: string, body: string | Buffer = '', headers: Record<string, string> = {}): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          agent: this.agent,
          host: this.url.hostname,
          port: this.url.port,
          method,
          path,
          headers: { 'content-type': 'application/json', ...headers, 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** One request ready to send; resolves when its answer is complete, rejects when the answer is wrong. */
export type Op = () => Promise<void>;

export interface LatencyResult {
  n: number;
  p50: number;
  p95: number;
  p99: number;
}

export interface ThroughputResult {
  n: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  /** The longest a request waited for its answer, in ms. */
  max: number;
}

/** Nearest-rank percentile of sorted values. */
/** A latency in milliseconds as the bench tables print it: two decimals below 10, one above, a dash for none. */
export const f1 = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '—' : v < 10 ? v.toFixed(2) : v.toFixed(1));

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Sends `n` requests one after another (or until `maxSeconds` passed) and reports latency percentiles in ms. */
export async function latencyPass(next: () => Op, n: number, maxSeconds: number): Promise<LatencyResult> {
  const ms: number[] = [];
  const deadline = performance.now() + maxSeconds * 1000;
  for (let i = 0; i < n && performance.now() < deadline; i++) {
    const op = next();
    const t0 = performance.now();
    await op();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { n: ms.length, p50: percentile(ms, 50), p95: percentile(ms, 95), p99: percentile(ms, 99) };
}

/** Keeps `concurrency` requests in flight for `seconds` and reports completed requests per second. */
export async function throughputPass(next: () => Op, concurrency: number, seconds: number, maxRequests = Infinity): Promise<ThroughputResult> {
  const ms: number[] = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let issued = 0;
  const worker = async () => {
    while (performance.now() < deadline && issued < maxRequests) {
      issued++;
      const op = next();
      const t0 = performance.now();
      await op();
      ms.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  ms.sort((a, b) => a - b);
  return { n: ms.length, rps: ms.length / elapsed, p50: percentile(ms, 50), p95: percentile(ms, 95), p99: percentile(ms, 99), max: ms.at(-1) ?? NaN };
}
