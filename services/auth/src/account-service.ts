import { createHash, randomUUID } from 'node:crypto';
import type { Cache } from '@trove/cache';
import type { Plan } from '@trove/contracts';
import { ERRORS, type Logger, type PortalTokens } from '@trove/platform';
import { dummyHash, hashPassword, verifyPassword } from './domain/passwords';
import type { Db } from './store/schema';
import { ensureTenant } from './store/tenants';
import { EmailTaken, findUser, findUserForLogin, insertUser, updateUser, type UserRow } from './store/users';

/** How many sign-in attempts each email and each client address get per window. */
export interface LoginLimits {
  perEmail: number;
  perAddress: number;
  windowMs: number;
}

export interface AccountServiceOptions {
  db: Db;
  tokens: PortalTokens;
  /** Counts sign-in attempts (shared by replicas when it is Redis). */
  cache: Cache;
  limits: LoginLimits;
  /** Plan of a tenant created at signup. */
  newTenantPlan: Plan;
  logger: Logger;
}

export interface SignUp {
  email: string;
  password: string;
  display_name: string | null;
  company: string | null;
}

/** What signup and login answer: a portal token and the account it is for. */
export interface Session {
  token: string;
  expiresIn: number;
  user: UserRow;
}

/** Same detail for an unknown email and a wrong password, so the answer does not tell which emails have accounts. */
const BAD_CREDENTIALS = 'Invalid email or password';

/** Portal accounts: signup (a tenant and its first user), login, and the signed-in user's account. */
export class AccountService {
  private readonly db: Db;

  constructor(private readonly opts: AccountServiceOptions) {
    this.db = opts.db;
  }

  /** A new tenant and its first user, in one transaction; 409 when the email (in any case) has an account. */
  async signUp(input: SignUp): Promise<Session> {
    const passwordHash = await hashPassword(input.password);
    const tenant = { id: randomUUID(), name: input.company ?? input.display_name ?? input.email, plan: this.opts.newTenantPlan };
    try {
      const user = await this.db.transaction().execute(async (trx) => {
        await ensureTenant(trx, tenant);
        return insertUser(trx, { id: randomUUID(), tenant_id: tenant.id, email: input.email, password_hash: passwordHash, display_name: input.display_name, company: input.company });
      });
      return this.session(user, tenant.plan);
    } catch (err) {
      if (err instanceof EmailTaken) throw ERRORS.conflict('An account with this email already exists');
      throw err;
    }
  }

  /**
   * A token for the email and password, or 401 with one detail whether the email is unknown or the password wrong
   * (an unknown email is checked against a dummy hash, so both take as long). Each attempt counts against the
   * email's and the client address's allowance first: 429 with Retry-After once either is spent.
   */
  async logIn(email: string, password: string, clientAddress: string): Promise<Session> {
    await this.countAttempt(email, clientAddress);
    const user = await findUserForLogin(this.db, email);
    const matches = await verifyPassword(password, user?.password_hash ?? (await dummyHash()));
    if (!user || !matches) throw ERRORS.unauthorized(BAD_CREDENTIALS);
    const { password_hash: _hash, plan, ...account } = user;
    return this.session(account, plan);
  }

  async account(tenantId: string, userId: string): Promise<UserRow> {
    const user = await findUser(this.db, tenantId, userId);
    if (!user) throw ERRORS.notFound('Account not found');
    return user;
  }

  async updateAccount(tenantId: string, userId: string, changes: { display_name?: string | null; company?: string | null }): Promise<UserRow> {
    const user = await updateUser(this.db, tenantId, userId, changes);
    if (!user) throw ERRORS.notFound('Account not found');
    return user;
  }

  private session(user: UserRow, plan: Plan): Session {
    const token = this.opts.tokens.sign({ userId: user.id, tenantId: user.tenant_id, plan });
    return { token, expiresIn: this.opts.tokens.ttlSeconds, user };
  }

  private async countAttempt(email: string, clientAddress: string): Promise<void> {
    const { cache, limits } = this.opts;
    // The email is hashed so that the counter store (Redis, when shared) holds no addresses of people.
    const emailKey = createHash('sha256').update(email.toLowerCase()).digest('hex');
    let counts: { count: number; resetAt: number; limit: number }[];
    try {
      const [byEmail, byAddress] = await Promise.all([
        cache.hit(`auth:login:email:${emailKey}`, limits.windowMs),
        cache.hit(`auth:login:address:${clientAddress}`, limits.windowMs),
      ]);
      counts = [
        { ...byEmail, limit: limits.perEmail },
        { ...byAddress, limit: limits.perAddress },
      ];
    } catch (err) {
      // As Open's limits: a counter store that cannot answer must not lock every person out of the portal.
      this.opts.logger.warn({ err }, 'login attempt counter unavailable; attempt let through');
      return;
    }
    const spent = counts.filter((c) => c.count > c.limit);
    if (spent.length === 0) return;
    const seconds = Math.max(1, ...spent.map((c) => Math.ceil((c.resetAt - Date.now()) / 1000)));
    throw ERRORS.tooManyRequests(`Too many sign-in attempts. Try again in ${seconds} seconds.`, { 'Retry-After': String(seconds) }, 'sign_in_attempts');
  }
}
