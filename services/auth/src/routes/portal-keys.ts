import type { Router } from 'express';
import { ERRORS, identityOf, parseInput, requirePortalUser, tenantOf } from '@trove/platform';
import { MESSAGES } from '../domain/key-rules';
import type { IssuedKey, KeyService } from '../key-service';
import { createKeyBody, iso, keyPath, listed, parseExpiry } from './key-routes';

/** The portal's answer to create and rotate: the key value once, with created_at. */
function issued({ row, value }: IssuedKey, message: string) {
  return { id: row.id, name: row.name, key: value, scopes: row.scopes, created_at: iso(row.created_at), message };
}

/**
 * The signed-in person's API keys: the key routes' use cases (and their auth.events, so a revoked or rotated key
 * stops working at every gateway) in the portal's shapes. Another tenant's key reads as missing.
 */
export function portalKeyRoutes(router: Router, keys: KeyService): void {
  const portalUser = requirePortalUser();

  router.post('/portal/keys', portalUser, async (req, res) => {
    const body = parseInput(createKeyBody, req.body, 'body');
    const created = await keys.create(identityOf(req), { name: body.name, scopes: body.scopes, expiresAt: parseExpiry(body.expires_at) });
    req.log.info({ keyId: created.row.id, scopes: created.row.scopes }, 'api key created in the portal');
    res.status(201).json(issued(created, MESSAGES.created));
  });

  router.get('/portal/keys', portalUser, async (req, res) => {
    res.json({ keys: (await keys.list(tenantOf(req))).map(listed) });
  });

  router.post('/portal/keys/:key_id/rotate', portalUser, async (req, res) => {
    const { key_id } = parseInput(keyPath, req.params, 'path');
    const rotated = await keys.rotate(tenantOf(req), key_id);
    if (!rotated) throw ERRORS.notFound('API key not found');
    req.log.info({ keyId: key_id }, 'api key rotated in the portal');
    res.json(issued(rotated, MESSAGES.rotated));
  });

  router.delete('/portal/keys/:key_id', portalUser, async (req, res) => {
    const { key_id } = parseInput(keyPath, req.params, 'path');
    if (!(await keys.revoke(tenantOf(req), key_id))) throw ERRORS.notFound('API key not found');
    req.log.info({ keyId: key_id }, 'api key revoked in the portal');
    res.status(204).end();
  });
}
