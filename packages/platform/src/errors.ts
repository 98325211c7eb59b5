export interface ValidationIssue {
  loc: string[];
  msg: string;
  type: string;
  input: unknown;
  ctx: Record<string, unknown>;
}

/**
 * The limits whose refusals are counted (trove_limit_refusals_total, docs/observability.md): by kind of limit, never by
 * tenant, whose ids as label values would make a series per tenant.
 */
export type LimitKind =
  | 'tenant_rate'
  | 'open_address_rate'
  | 'sign_in_attempts'
  | 'monthly_searches'
  | 'plan_records'
  | 'async_uploads'
  | 'stream_buffer';

/** Every error an endpoint answers on purpose: status, a stable code, and the body's detail. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string | ValidationIssue[],
    readonly headers: Record<string, string> = {},
    /** The limit this refusal enforces, counted when the error is answered (errorHandler). */
    readonly limit?: LimitKind,
  ) {
    super(typeof detail === 'string' ? detail : `${code}: ${detail.length} issue(s)`);
    this.name = 'HttpError';
  }

  body(): { detail: string | ValidationIssue[] } {
    return { detail: this.detail };
  }
}

/** A 422 lists at most this many issues; one more entry says how many were left out. */
export const MAX_VALIDATION_ISSUES = 100;
/** An issue's `input` is echoed while its JSON is at most about this many characters; a larger one is described. */
export const MAX_ECHOED_INPUT_CHARACTERS = 4096;

/**
 * Whether a value's JSON stays within `budget` characters (about: separators are counted roughly). Walks with a stack
 * of its own and stops as soon as the budget is spent, so a value nested 100,000 deep or holding 100,000 fields
 * costs no more than a small one.
 */
function fitsIn(value: unknown, budget: number): boolean {
  const stack: unknown[] = [value];
  let used = 0;
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') used += v.length + 2;
    else if (v !== null && typeof v === 'object') {
      used += 2;
      if (Array.isArray(v)) for (const item of v) stack.push(item);
      else
        for (const [k, item] of Object.entries(v)) {
          used += k.length + 4;
          stack.push(item);
        }
    } else used += String(v).length + 1;
    if (used > budget) return false;
  }
  return true;
}

/** What a 422 echoes of an input: the input while it is small, else its start (text) or what it was (lists, objects). */
function echoed(input: unknown): unknown {
  if (fitsIn(input, MAX_ECHOED_INPUT_CHARACTERS)) return input;
  if (typeof input === 'string') return `${input.slice(0, 1000)}… (${input.length} characters, not echoed whole)`;
  if (Array.isArray(input)) return `(a list of ${input.length} items, too large to echo)`;
  return `(an object of ${Object.keys(input as object).length} fields, too large to echo)`;
}

/**
 * The issues a 422 answers: each input bounded (a 2 MB value sent is not sent back), and at most
 * MAX_VALIDATION_ISSUES of them (a batch with a bad field in each of 10,000 records answers the first ones).
 */
function bounded(issues: ValidationIssue[]): ValidationIssue[] {
  const shown = issues.slice(0, MAX_VALIDATION_ISSUES).map((i) => ({ ...i, input: echoed(i.input) }));
  const omitted = issues.length - shown.length;
  if (omitted > 0) {
    shown.push({ loc: shown[0]!.loc.slice(0, 1), msg: `${omitted} more issues not shown`, type: 'too_many_issues', input: null, ctx: { omitted } });
  }
  return shown;
}

/** The error catalogue: one constructor per kind, status and code set here only. */
export const ERRORS = {
  badRequest: (detail: string) => new HttpError(400, 'bad_request', detail),
  unauthorized: (detail = 'Missing or invalid API key') => new HttpError(401, 'unauthorized', detail),
  paymentRequired: (detail: string, limit?: LimitKind) => new HttpError(402, 'payment_required', detail, {}, limit),
  forbidden: (detail = 'Insufficient permissions') => new HttpError(403, 'forbidden', detail),
  notFound: (detail = 'Not found') => new HttpError(404, 'not_found', detail),
  conflict: (detail: string) => new HttpError(409, 'conflict', detail),
  payloadTooLarge: (detail: string) => new HttpError(413, 'payload_too_large', detail),
  unsupportedMediaType: (detail: string) => new HttpError(415, 'unsupported_media_type', detail),
  validation: (issues: ValidationIssue[]) => new HttpError(422, 'validation_error', bounded(issues)),
  tooManyRequests: (detail: string, headers: Record<string, string> = {}, limit?: LimitKind) =>
    new HttpError(429, 'too_many_requests', detail, headers, limit),
  internal: () => new HttpError(500, 'internal', 'Internal server error'),
  unavailable: (detail: string, headers: Record<string, string> = {}) => new HttpError(503, 'service_unavailable', detail, headers),
} as const;

/** The catalogue's code for each status it answers. */
const CODE_OF_STATUS = new Map(
  Object.values(ERRORS).map((make) => {
    const err = (make as (detail: never) => HttpError)([] as never);
    return [err.status, err.code];
  }),
);

/**
 * A refusal another service answered, passed on to this service's client as it is: the same status and detail (a
 * 422's issues too), with the catalogue's code for that status.
 */
export function passedOn(status: number, body: unknown): HttpError {
  const detail = (body as { detail?: unknown } | null | undefined)?.detail;
  return new HttpError(status, CODE_OF_STATUS.get(status) ?? 'refused', typeof detail === 'string' || Array.isArray(detail) ? (detail as string | ValidationIssue[]) : `Refused (HTTP ${status})`);
}

/** A single 422 issue, for checks that are not a zod schema. */
export function validationError(
  loc: string[],
  msg: string,
  type: string,
  input: unknown,
  ctx: Record<string, unknown> = {},
): HttpError {
  return ERRORS.validation([{ loc, msg, type, input: input ?? null, ctx }]);
}
