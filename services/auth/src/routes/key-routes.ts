import type { Router } from 'express';
import { z } from 'zod';
import { ERRORS, SCOPES, fields, identityOf, parseInput, requireScope, validationError } from '@trove/platform';
import { MESSAGES } from '../domain/key-rules';
import type { KeyService } from '../key-service';
import type { ApiKeyRow } from '../store/api-keys';

export const createKeyBody = z.object({
  name: z.string().trim().min(1).max(100),
  scopes: z
    .array(z.enum(SCOPES))
    .min(1)
    .refine((s) => new Set(s).size === s.length, { message: 'Scopes must not repeat' }),
  /** A datetime without an offset is read as UTC. */
  expires_at: z.iso.datetime({ offset: true, local: true }).nullable().optional(),
});

// Lower-cased so that events name a key exactly as the gateway's cache knows it.
export const keyPath = z.object({ key_id: fields.uuid.transform((id) => id.toLowerCase()) });

export const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

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

function issued(row: ApiKeyRow, value: string, message: string) {
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

  router.post('/auth/keys', admin, async (req, res) => {
    const body = parseInput(createKeyBody, req.body, 'body');
    const expiresAt = parseExpiry(body.expires_at);
    const { row, value } = await keys.create(identityOf(req), { name: body.name, scopes: body.scopes, expiresAt });
    req.log.info({ keyId: row.id, scopes: row.scopes }, 'api key created');
    res.status(201).json(issued(row, value, MESSAGES.created));
  });

  router.get('/auth/keys', admin, async (req, res) => {
    const rows = await keys.list(identityOf(req).tenantId);
    res.json(rows.map(listed));
  });

  router.post('/auth/keys/:key_id/rotate', admin, async (req, res) => {
    const { key_id } = parseInput(keyPath, req.params, 'path');
    const rotated = await keys.rotate(identityOf(req).tenantId, key_id);
    if (!rotated) throw ERRORS.notFound('API key not found');
    req.log.info({ keyId: key_id }, 'api key rotated');
    res.json(issued(rotated.row, rotated.value, MESSAGES.rotated));
  });

  router.delete('/auth/keys/:key_id', admin, async (req, res) => {
    const { key_id } = parseInput(keyPath, req.params, 'path');
    if (!(await keys.revoke(identityOf(req).tenantId, key_id))) throw ERRORS.notFound('API key not found');
    req.log.info({ keyId: key_id }, 'api key revoked');
    res.status(204).end();
  });
}
