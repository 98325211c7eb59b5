export interface ValidationIssue {
  loc: string[];
  msg: string;
  type: string;
  input: unknown;
  ctx: Record<string, unknown>;
}

/** Every error an endpoint answers on purpose: status, a stable code, and the body's detail. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string | ValidationIssue[],
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : `${code}: ${detail.length} issue(s)`);
    this.name = 'HttpError';
  }

  body(): { detail: string | ValidationIssue[] } {
    return { detail: this.detail };
  }
}

/** The error catalogue: one constructor per kind, status and code set here only. */
export const ERRORS = {
  badRequest: (detail: string) => new HttpError(400, 'bad_request', detail),
  unauthorized: (detail = 'Missing or invalid API key') => new HttpError(401, 'unauthorized', detail),
  paymentRequired: (detail: string) => new HttpError(402, 'payment_required', detail),
  forbidden: (detail = 'Insufficient permissions') => new HttpError(403, 'forbidden', detail),
  notFound: (detail = 'Not found') => new HttpError(404, 'not_found', detail),
  conflict: (detail: string) => new HttpError(409, 'conflict', detail),
  payloadTooLarge: (detail: string) => new HttpError(413, 'payload_too_large', detail),
  unsupportedMediaType: (detail: string) => new HttpError(415, 'unsupported_media_type', detail),
  validation: (issues: ValidationIssue[]) => new HttpError(422, 'validation_error', issues),
  tooManyRequests: (detail: string, headers: Record<string, string> = {}) =>
    new HttpError(429, 'too_many_requests', detail, headers),
  internal: () => new HttpError(500, 'internal', 'Internal server error'),
  unavailable: (detail: string) => new HttpError(503, 'service_unavailable', detail),
} as const;

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
