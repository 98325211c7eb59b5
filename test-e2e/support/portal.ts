import { randomUUID } from 'node:crypto';
import { bearer, client } from './system';

/** The account a portal sign-in answers with. */
export interface PortalAccount {
  user_id: string;
  email: string;
  tenant_id: string;
  display_name: string | null;
  company: string | null;
  created_at: string;
}

export interface SignedUp {
  /** The portal JWT; send it as `Authorization: Bearer <token>` (see `portalAuth`). */
  token: string;
  account: PortalAccount;
  email: string;
  password: string;
}

/**
 * Signs a new person up through the gateway (POST /api/v1/portal/auth/signup), which creates a tenant of their own,
 * and returns the portal token and account. Each call makes a new tenant unless an email is given.
 */
export async function signUp(
  target: string | ReturnType<typeof client>,
  opts: { email?: string; password?: string; display_name?: string; company?: string } = {},
): Promise<SignedUp> {
  const api = typeof target === 'string' ? client(target) : target;
  const email = opts.email ?? `person-${randomUUID()}@example.com`;
  const password = opts.password ?? `correct horse ${randomUUID()}`;
  const res = await api('POST', '/api/v1/portal/auth/signup', {
    body: { email, password, display_name: opts.display_name, company: opts.company },
  });
  if (res.status !== 201) throw new Error(`signup answered ${res.status}: ${res.text}`);
  return { token: res.body.token, account: res.body.account, email, password };
}

/** The Authorization header of a portal request. */
export const portalAuth = (token: string) => bearer(token);
