import type { Router } from 'express';
import { KEY_CREATE, KEY_LIST, KEY_REVOKE, KEY_ROTATE, type EndpointAnswer } from '@trove/contracts';
import { ERRORS, handle, identityOf, parseInput, requireScope, serve, validationError } from '@trove/platform';
import { MESSAGES } from '../domain/key-rules';
import type { KeyService } from '../key-service';
import type { ApiKeyRow } from '../store/api-keys';

export function iso(d: Date | string): string;
export function iso(d: Date | string | null): string | null;
export function iso(d: Date | string | null): string | null {
  return d === null ? null : new Date(d).toISOString();
}

export function parseExpiry(raw: string | null | undefined): Date | null {
  if (!raw) return null;
  const expiresAt = new Date(/(z|[+-]\d\d:?\d\d)$/i.test(raw) ? raw : `${raw}Z`);
  if (expiresAt.getTime() <= Date.now()) {
    throw validationError(['body', 'expires_at'], 'Input should be in the future', 'datetime_future', raw);
  }
  return expiresAt;
}

export function listed(row: ApiKeyRow) {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes,
    created_at: iso(row.created_at),
    expires_at: iso(row.expires_at),
    last_used_at: iso(row.last_used_at),
  };
}

function issued(row: ApiKeyRow, value: string, message: string): EndpointAnswer<typeof KEY_ROTATE> {
  return {
    id: row.id,
    name: row.name,
    key: value,
    scopes: row.scopes,
    expires_at: iso(row.expires_at),
    message,
  };
}

/** API key management; every route needs the admin scope. Another tenant's key reads as missing. */
export function keyRoutes(router: Router, keys: KeyService): void {
  const admin = requireScope('admin');

  // The body is parsed as sent: an absent one is a 422 about the body, not about each of its fields.
  handle(router, KEY_CREATE, admin, async (req, res) => {
    const body = parseInput(KEY_CREATE.body, req.body, 'body');
    const expiresAt = parseExpiry(body.expires_at);
    const { row, value } = await keys.create(identityOf(req), { name: body.name, scopes: body.scopes, expiresAt });
    req.log.info({ keyId: row.id, scopes: row.scopes }, 'api key created');
    res.status(201).json(issued(row, value, MESSAGES.created) satisfies EndpointAnswer<typeof KEY_CREATE>);
  });

  serve(router, KEY_LIST, [admin], async (_input, req) => {
    const rows = await keys.list(identityOf(req).tenantId);
    return rows.map(listed);
  });

  serve(router, KEY_ROTATE, [admin], async ({ params: { key_id } }, req) => {
    const rotated = await keys.rotate(identityOf(req).tenantId, key_id);
    if (!rotated) throw ERRORS.notFound('API key not found');
    req.log.info({ keyId: key_id }, 'api key rotated');
    return issued(rotated.row, rotated.value, MESSAGES.rotated);
  });

  serve(router, KEY_REVOKE, [admin], async ({ params: { key_id } }, req) => {
    if (!(await keys.revoke(identityOf(req).tenantId, key_id))) throw ERRORS.notFound('API key not found');
    req.log.info({ keyId: key_id }, 'api key revoked');
    return undefined;
  });
}
