import type { Router } from 'express';
import { z } from 'zod';
import { parseInput, portalUserOf, requirePortalUser, tenantOf } from '@trove/platform';
import type { AccountService } from '../account-service';
import type { UserRow } from '../store/users';
import { iso } from './key-routes';

/** The specification's account resource. */
export function accountOf(user: UserRow) {
  return {
    user_id: user.id,
    email: user.email,
    tenant_id: user.tenant_id,
    display_name: user.display_name,
    company: user.company,
    created_at: iso(user.created_at),
  };
}

/** display_name and company: trimmed, empty meaning none. */
export const accountText = z
  .string()
  .trim()
  .max(200)
  .transform((v) => (v === '' ? null : v))
  .nullable();

// Strict: a misspelt field is a 422, not a silent no-op.
const patchBody = z.strictObject({ display_name: accountText.optional(), company: accountText.optional() });

/** The signed-in person's account. */
export function portalAccountRoutes(router: Router, accounts: AccountService): void {
  const portalUser = requirePortalUser();

  router.get('/portal/account', portalUser, async (req, res) => {
    res.json(accountOf(await accounts.account(tenantOf(req), portalUserOf(req))));
  });

  router.patch('/portal/account', portalUser, async (req, res) => {
    const body = parseInput(patchBody, req.body ?? {}, 'body');
    const changes = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
    res.json(accountOf(await accounts.updateAccount(tenantOf(req), portalUserOf(req), changes)));
  });
}
