import type { Router } from 'express';
import { z } from 'zod';
import { clientKey, parseInput } from '@trove/platform';
import type { AccountService, Session } from '../account-service';
import { accountOf, accountText } from './portal-account';

/** Long enough for a passphrase, short enough that hashing one costs what hashing any other does. */
const PASSWORD_MAX = 1_000;
const email = z.string().trim().max(254).pipe(z.email());

const signupBody = z.object({
  email,
  password: z.string().min(10).max(PASSWORD_MAX),
  display_name: accountText.optional(),
  company: accountText.optional(),
});

const loginBody = z.object({
  email,
  password: z.string().min(1).max(PASSWORD_MAX),
});

function answer(session: Session) {
  return { token: session.token, token_type: 'Bearer', expires_in: session.expiresIn, account: accountOf(session.user) };
}

/** Portal sign-in; the gateway lets these through without a credential (they are how one is obtained). */
export function portalAuthRoutes(router: Router, accounts: AccountService): void {
  router.post('/portal/auth/signup', async (req, res) => {
    const body = parseInput(signupBody, req.body, 'body');
    const session = await accounts.signUp({
      email: body.email,
      password: body.password,
      display_name: body.display_name ?? null,
      company: body.company ?? null,
    });
    req.log.info({ userId: session.user.id, tenantId: session.user.tenant_id }, 'portal account created');
    res.status(201).json(answer(session));
  });

  router.post('/portal/auth/login', async (req, res) => {
    const body = parseInput(loginBody, req.body, 'body');
    // req.ip is the address the gateway saw (its X-Forwarded-For), believed only from TRUSTED_PROXIES.
    const session = await accounts.logIn(body.email, body.password, clientKey(req.ip));
    req.log.info({ userId: session.user.id }, 'portal sign-in');
    res.json(answer(session));
  });
}
