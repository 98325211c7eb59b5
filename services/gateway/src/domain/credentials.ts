import { fields } from '@trove/platform';

export const API_KEY_FORMAT = /^sk_live_[0-9a-f]{64}$/;

/** What a request presents, before anything is verified. */
export type Credential =
  | { kind: 'none' }
  | { kind: 'key'; value: string }
  /** A bearer token that is not an API key: a portal token. */
  | { kind: 'token'; value: string }
  /** Development only: X-Tenant-Id standing in for a key. */
  | { kind: 'dev-tenant'; tenantId: string }
  | { kind: 'malformed'; reason: string };

/**
 * Reads the credential of a request. Authorization wins over X-Tenant-Id, and X-Tenant-Id counts only when
 * development mode allows it; otherwise it is ignored as if absent.
 */
export function readCredential(
  headers: { authorization?: string; tenantId?: string },
  allowDevTenant: boolean,
): Credential {
  if (headers.authorization !== undefined) {
    const bearer = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(headers.authorization);
    if (!bearer) return { kind: 'malformed', reason: 'Authorization must be "Bearer <API key>"' };
    const value = bearer[1]!;
    if (API_KEY_FORMAT.test(value)) return { kind: 'key', value };
    if (value.startsWith('sk_')) return { kind: 'malformed', reason: 'Invalid API key' };
    return { kind: 'token', value };
  }
  if (allowDevTenant && headers.tenantId !== undefined) {
    const parsed = fields.uuid.safeParse(headers.tenantId.trim());
    if (!parsed.success) return { kind: 'malformed', reason: 'X-Tenant-Id must be a UUID' };
    return { kind: 'dev-tenant', tenantId: parsed.data.toLowerCase() };
  }
  return { kind: 'none' };
}

// Case-insensitive because auth routes /auth/KEYS/{id}/Rotate as it routes /auth/keys/{id}/rotate.
const KEY_WRITE = /^\/api\/v1\/(?:auth|portal)\/keys\/([0-9a-f-]{36})(\/rotate)?\/?$/i;

/**
 * The key id a successful request revoked (DELETE /api/v1/auth/keys/{id}, or /api/v1/portal/keys/{id}) or rotated
 * (POST .../{id}/rotate), so the gateway that forwarded it can drop the cached key before answering instead of
 * waiting for auth.events.
 */
export function keyChangedBy(method: string, path: string): string | undefined {
  const m = KEY_WRITE.exec(path);
  if (!m) return undefined;
  const rotate = m[2] !== undefined;
  if ((method === 'DELETE' && !rotate) || (method === 'POST' && rotate)) return m[1]!.toLowerCase();
  return undefined;
}
