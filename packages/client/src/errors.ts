import type { components } from './schema.js';

/** One problem of a 422 answer: where (`loc`, starting with `body`, `query` or `path`) and why (`msg`, `type`). */
export type ValidationIssue = components['schemas']['ValidationError']['detail'][number];

/** What identifies the request an error is about. */
interface RequestOf {
  method: string;
  /** The URL's path and query, without the origin. */
  path: string;
}

/**
 * Trove refused the request: any answer outside 2xx. `detail` is the refusal's text; a 422 also lists its problems in
 * `issues` (and `detail` joins them). `retryAfter` is the answer's Retry-After in seconds (429, and some 503s) and
 * `requestId` its X-Request-Id, to quote when reporting a problem.
 */
export class TroveError extends Error {
  override readonly name = 'TroveError';
  readonly status: number;
  readonly detail: string;
  /** The 422's problems, one per field; empty for any other status. */
  readonly issues: ValidationIssue[];
  readonly requestId: string | undefined;
  /** Seconds the answer asked to wait before trying again, when it said. */
  readonly retryAfter: number | undefined;
  readonly method: string;
  readonly path: string;
  /** The answer's body as received: parsed JSON, or text when it was not JSON. */
  readonly body: unknown;

  constructor(opts: { status: number; body: unknown; headers?: Headers; request: RequestOf }) {
    const { detail, issues } = describe(opts.status, opts.body);
    super(`${opts.request.method} ${opts.request.path} answered ${opts.status}: ${detail}`);
    this.status = opts.status;
    this.detail = detail;
    this.issues = issues;
    this.body = opts.body;
    this.requestId = opts.headers?.get('x-request-id') ?? undefined;
    this.retryAfter = retryAfterSeconds(opts.headers?.get('retry-after') ?? null);
    this.method = opts.request.method;
    this.path = opts.request.path;
  }
}

/**
 * The request got no answer: the connection failed or was cut before the answer's headers arrived. Whether the server
 * acted on the request is unknown; `cause` is the underlying error.
 */
export class TroveNetworkError extends Error {
  override name = 'TroveNetworkError';
  readonly method: string;
  readonly path: string;

  constructor(request: RequestOf, cause: unknown, message = `${request.method} ${request.path} failed: ${messageOf(cause)}`) {
    super(message, { cause });
    this.method = request.method;
    this.path = request.path;
  }
}

/** No answer came within the request's timeout (`timeoutMs`); the request was abandoned. */
export class TroveTimeoutError extends TroveNetworkError {
  override name = 'TroveTimeoutError';
  readonly timeoutMs: number;

  constructor(request: RequestOf, timeoutMs: number) {
    super(request, undefined, `${request.method} ${request.path} got no answer within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}

/** The MCP endpoint answered a tool call with a JSON-RPC error: an unknown tool, or arguments its schema refuses. */
export class TroveToolError extends Error {
  override readonly name = 'TroveToolError';
  readonly tool: string;
  /** The JSON-RPC error code (-32602: invalid params). */
  readonly code: number;

  constructor(tool: string, code: number, message: string) {
    super(`${tool}: ${message}`);
    this.tool = tool;
    this.code = code;
  }
}

/** The `detail` text of an answer's body and, for a 422, its problems. */
function describe(status: number, body: unknown): { detail: string; issues: ValidationIssue[] } {
  const detail = typeof body === 'object' && body !== null && 'detail' in body ? (body as { detail: unknown }).detail : undefined;
  if (Array.isArray(detail)) {
    const issues = detail.filter(isIssue);
    return { detail: issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ') || `HTTP ${status}`, issues };
  }
  if (typeof detail === 'string') return { detail, issues: [] };
  if (typeof body === 'string' && body.trim() !== '') return { detail: body.trim().slice(0, 500), issues: [] };
  return { detail: `HTTP ${status}`, issues: [] };
}

function isIssue(value: unknown): value is ValidationIssue {
  const v = value as Partial<ValidationIssue> | null;
  return typeof v === 'object' && v !== null && Array.isArray(v.loc) && typeof v.msg === 'string' && typeof v.type === 'string';
}

/**
 * Retry-After in seconds: a number of seconds, or an HTTP date (RFC 9110 10.2.3) counted from now. Undefined when
 * absent or unreadable.
 */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}

function messageOf(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
  }
  return String(err);
}
