import type { Router } from 'express';
import { PORTAL_KEY_CREATE, PORTAL_KEY_LIST, PORTAL_KEY_REVOKE, PORTAL_KEY_ROTATE, type EndpointAnswer } from '@trove/contracts';
import { ERRORS, handle, identityOf, parseInput, requirePortalUser, serve, tenantOf } from '@trove/platform';
import { MESSAGES } from '../domain/key-rules';
import type { IssuedKey, KeyService } from '../key-service';
import { iso, listed, parseExpiry } from './key-routes';

/** The portal's answer to create and rotate: the key value once, with created_at. */
function issued({ row, value }: IssuedKey, message: string): EndpointAnswer<typeof PORTAL_KEY_ROTATE> {
  return { id: row.id, name: row.name, key: value, scopes: row.scopes, created_at: iso(row.created_at), message };
}

/**
 * The signed-in person's API keys: the key routes' use cases (and their auth.events, so a revoked or rotated key
 * stops working at every gateway) in the portal's shapes. Another tenant's key reads as missing.
 */
export function portalKeyRoutes(router: Router, keys: KeyService): void {
  const portalUser = requirePortalUser();

  // The body is parsed as sent: an absent one is a 422 about the body, not about each of its fields.
  handle(router, PORTAL_KEY_CREATE, portalUser, async (req, res) => {
    const body = parseInput(PORTAL_KEY_CREATE.body, req.body, 'body');
    const created = await keys.create(identityOf(req), { name: body.name, scopes: body.scopes, expiresAt: parseExpiry(body.expires_at) });
    req.log.info({ keyId: created.row.id, scopes: created.row.scopes }, 'api key created in the portal');
    res.status(201).json(issued(created, MESSAGES.created) satisfies EndpointAnswer<typeof PORTAL_KEY_CREATE>);
  });

  serve(router, PORTAL_KEY_LIST, [portalUser], async (_input, req) => ({ keys: (await keys.list(tenantOf(req))).map(listed) }));

  serve(router, PORTAL_KEY_ROTATE, [portalUser], async ({ params: { key_id } }, req) => {
    const rotated = await keys.rotate(tenantOf(req), key_id);
    if (!rotated) throw ERRORS.notFound('API key not found');
    req.log.info({ keyId: key_id }, 'api key rotated in the portal');
    return issued(rotated, MESSAGES.rotated);
  });

  serve(router, PORTAL_KEY_REVOKE, [portalUser], async ({ params: { key_id } }, req) => {
    if (!(await keys.revoke(tenantOf(req), key_id))) throw ERRORS.notFound('API key not found');
    req.log.info({ keyId: key_id }, 'api key revoked in the portal');
    return undefined;
  });
}
