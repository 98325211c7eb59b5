import type { Router } from 'express';
import { GATEWAY_PRINCIPAL, KEY_VERIFY, type KeyVerifyResponse } from '@trove/contracts';
import { ERRORS, handle, identityOf } from '@trove/platform';
import type { KeyService } from '../key-service';

const REFUSALS = {
  unknown: 'Invalid API key',
  // A revoked key reads like an unknown one: the caller learns nothing about keys it does not hold.
  revoked: 'Invalid API key',
  expired: 'API key has expired',
} as const;

/** Key verification for the gateway. The body is read by hand so that a malformed one is never echoed in a 422. */
export function internalKeyRoutes(router: Router, keys: KeyService): void {
  handle(router, KEY_VERIFY, async (req, res) => {
    if (identityOf(req).principal !== GATEWAY_PRINCIPAL) throw ERRORS.forbidden('Only the gateway may verify keys');
    const value: unknown = req.body?.key;
    if (typeof value !== 'string' || value.length === 0 || value.length > 200) throw ERRORS.unauthorized(REFUSALS.unknown);
    const result = await keys.verify(value);
    if (!result.ok) throw ERRORS.unauthorized(REFUSALS[result.reason]);
    const body: KeyVerifyResponse = {
      tenant_id: result.tenantId,
      key_id: result.keyId,
      scopes: result.scopes,
      plan: result.plan,
      expires_at: result.expiresAt && result.expiresAt.toISOString(),
    };
    res.json(body);
  });
}
