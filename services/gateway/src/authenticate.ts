import type { Request } from 'express';
import { ERRORS, hasScope, type Identity } from '@trove/platform';
import { readCredential } from './domain/credentials';
import type { Access } from './domain/route-table';
import type { KeyVerifier } from './key-verifier';

/** The identity forwarded on routes that need no credential, so services can still tell the request came through us. */
export const ANONYMOUS_IDENTITY: Identity = {
  tenantId: '00000000-0000-0000-0000-000000000000',
  principal: 'anonymous',
  scopes: [],
};

export interface AuthenticatorOptions {
  keys: KeyVerifier;
  /** ENV=development: X-Tenant-Id may replace the API key. */
  allowDevTenant: boolean;
}

/** Establishes who a request acts for, as its route demands, or throws the 401 or 403 to answer. */
export class Authenticator {
  constructor(private readonly opts: AuthenticatorOptions) {}

  async identify(access: Access, req: Request): Promise<Identity> {
    if (access.kind === 'none') return ANONYMOUS_IDENTITY;
    const credential = readCredential(
      { authorization: req.get('authorization'), tenantId: req.get('x-tenant-id') },
      this.opts.allowDevTenant && access.kind === 'key',
    );
    let identity: Identity;
    switch (credential.kind) {
      case 'key':
        identity = await this.opts.keys.verify(credential.value, req.id);
        break;
      case 'dev-tenant':
        identity = { tenantId: credential.tenantId, principal: `dev:${credential.tenantId}`, scopes: ['admin'] };
        break;
      case 'token':
        // Portal sign-in tokens are not issued yet, so no bearer token other than an API key can be valid.
        throw ERRORS.unauthorized(access.kind === 'portal' ? 'Invalid or expired portal token' : 'Invalid API key');
      case 'malformed':
        throw ERRORS.unauthorized(credential.reason);
      case 'none':
        throw ERRORS.unauthorized(access.kind === 'portal' ? 'Missing portal token' : 'Missing API key');
    }
    // Until portal tokens exist, an API key reaches portal routes only with the scope that manages the tenant.
    const scope = access.kind === 'portal' ? 'admin' : access.scope;
    if (scope && !hasScope(identity, scope)) throw ERRORS.forbidden(`This key lacks the '${scope}' scope`);
    req.log = req.log.child({ tenantId: identity.tenantId, principal: identity.principal });
    return identity;
  }
}
