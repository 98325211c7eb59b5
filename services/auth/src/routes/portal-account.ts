import type { Router } from 'express';
import { PORTAL_ACCOUNT, PORTAL_ACCOUNT_UPDATE, type EndpointAnswer } from '@trove/contracts';
import { portalUserOf, requirePortalUser, serve, tenantOf } from '@trove/platform';
import type { AccountService } from '../account-service';
import type { UserRow } from '../store/users';
import { iso } from './key-routes';

/** A user's portal account as answered (docs/behaviour/portal-sign-in.md). */
export function accountOf(user: UserRow): EndpointAnswer<typeof PORTAL_ACCOUNT> {
  return {
    user_id: user.id,
    email: user.email,
    tenant_id: user.tenant_id,
    display_name: user.display_name,
    company: user.company,
    created_at: iso(user.created_at),
  };
}

/** The signed-in person's account. */
export function portalAccountRoutes(router: Router, accounts: AccountService): void {
  const portalUser = requirePortalUser();

  serve(router, PORTAL_ACCOUNT, [portalUser], async (_input, req) => accountOf(await accounts.account(tenantOf(req), portalUserOf(req))));

  serve(router, PORTAL_ACCOUNT_UPDATE, [portalUser], async ({ body }, req) => {
    const changes = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
    return accountOf(await accounts.updateAccount(tenantOf(req), portalUserOf(req), changes));
  });
}
