import type { Router } from 'express';
import { PORTAL_LOGIN, PORTAL_SIGNUP, type EndpointAnswer } from '@trove/contracts';
import { clientKey, handle, parseInput } from '@trove/platform';
import type { AccountService, Session } from '../account-service';
import { accountOf } from './portal-account';

function answer(session: Session): EndpointAnswer<typeof PORTAL_LOGIN> {
  return { token: session.token, token_type: 'Bearer', expires_in: session.expiresIn, account: accountOf(session.user) };
}

/**
 * Portal sign-in; the gateway lets these through without a credential (they are how one is obtained). Their bodies
 * are parsed as sent: an absent one is a 422 about the body, not about each of its fields.
 */
export function portalAuthRoutes(router: Router, accounts: AccountService): void {
  handle(router, PORTAL_SIGNUP, async (req, res) => {
    const body = parseInput(PORTAL_SIGNUP.body, req.body, 'body');
    const session = await accounts.signUp({
      email: body.email,
      password: body.password,
      display_name: body.display_name ?? null,
      company: body.company ?? null,
    });
    req.log.info({ userId: session.user.id, tenantId: session.user.tenant_id }, 'portal account created');
    res.status(201).json(answer(session) satisfies EndpointAnswer<typeof PORTAL_SIGNUP>);
  });

  handle(router, PORTAL_LOGIN, async (req, res) => {
    const body = parseInput(PORTAL_LOGIN.body, req.body, 'body');
    // req.ip is the address the gateway saw (its X-Forwarded-For), believed only from TRUSTED_PROXIES.
    const session = await accounts.logIn(body.email, body.password, clientKey(req.ip));
    req.log.info({ userId: session.user.id }, 'portal sign-in');
    res.json(answer(session));
  });
}
