import type { Request } from 'express';
import { ERRORS, bindRequestLog, hasScope, type Identity, type PortalTokens, type Scope } from '@trove/platform';
import { readCredential } from './domain/credentials';
import type { Access } from './domain/route-table';
import type { KeyVerifier } from './key-verifier';
import type { TenantPlans } from './tenant-plans';

/** The identity forwarded on routes that need no credential, so services can still tell the request came through us. */
export const ANONYMOUS_IDENTITY: Identity = {
  tenantId: '00000000-0000-0000-0000-000000000000',
  principal: 'anonymous',
  scopes: [],
};

export interface AuthenticatorOptions {
  keys: KeyVerifier;
  /** Verifies portal sign-in tokens (auth signs them). */
  portalTokens: PortalTokens;
  /** ENV=development: X-Tenant-Id may replace the API key. */
  allowDevTenant: boolean;
  /** Plan changes seen on billing.events, applied over the plan a token or a cached key carries. */
  plans?: TenantPlans;
}

/** Establishes who a request acts for, as its route demands, or throws the 401 or 403 to answer. */
export class Authenticator {
  constructor(private readonly opts: AuthenticatorOptions) {}

  async identify(access: Access, req: Request): Promise<Identity> {
    if (access.kind === 'none') return ANONYMOUS_IDENTITY;
    const identity = this.withLatestPlan(access.kind === 'portal' ? this.portalUser(req) : await this.keyHolder(access.scope, req));
    bindRequestLog(req, { tenantId: identity.tenantId, principal: identity.principal });
    return identity;
  }

  private withLatestPlan(identity: Identity): Identity {
    const plan = this.opts.plans?.planOf(identity.tenantId);
    return plan ? { ...identity, plan } : identity;
  }

  /**
   * A person signed in to the portal: a valid portal token and nothing else. An API key is refused (keys are for
   * programs), and X-Tenant-Id is never read here, in development either: the token names the tenant.
   */
  private portalUser(req: Request): Identity {
    const credential = readCredential({ authorization: req.get('authorization') }, false);
    switch (credential.kind) {
      case 'token': {
        const claims = this.opts.portalTokens.verify(credential.value);
        if (!claims) throw ERRORS.unauthorized('Invalid or expired portal token');
        // A person holds every right over their own tenant.
        return { tenantId: claims.tenantId, principal: `user:${claims.userId}`, scopes: ['admin'], plan: claims.plan };
      }
      case 'key':
        throw ERRORS.unauthorized('API keys are not accepted on portal routes; sign in to the portal for a token');
      case 'malformed':
        throw ERRORS.unauthorized('Authorization must be "Bearer <portal token>"');
      case 'none':
      case 'dev-tenant':
        throw ERRORS.unauthorized('Missing portal token');
    }
  }

  /** A program holding an API key (or, in development, X-Tenant-Id) with the route's scope; a portal token is refused. */
  private async keyHolder(scope: Scope | undefined, req: Request): Promise<Identity> {
    const credential = readCredential({ authorization: req.get('authorization'), tenantId: req.get('x-tenant-id') }, this.opts.allowDevTenant);
    let identity: Identity;
    switch (credential.kind) {
      case 'key':
        identity = await this.opts.keys.verify(credential.value, req.id);
        break;
      case 'dev-tenant':
        identity = { tenantId: credential.tenantId, principal: `dev:${credential.tenantId}`, scopes: ['admin'] };
        break;
      case 'token':
        // Any other bearer token (a portal sign-in token included) is no API key.
        throw ERRORS.unauthorized('Invalid API key');
      case 'malformed':
        throw ERRORS.unauthorized(credential.reason);
      case 'none':
        throw ERRORS.unauthorized('Missing API key');
    }
    if (scope && !hasScope(identity, scope)) throw ERRORS.forbidden(`This key lacks the '${scope}' scope`);
    return identity;
  }
}
