import { sql } from 'kysely';
import type { Plan } from '@trove/contracts';
import type { AuthDb } from './schema';

export interface UserRow {
  id: string;
  tenant_id: string;
  email: string;
  display_name: string | null;
  company: string | null;
  created_at: Date;
}

const COLUMNS = ['id', 'tenant_id', 'email', 'display_name', 'company', 'created_at'] as const;

/** Thrown by insertUser when an account with the email (in any case) exists. */
export class EmailTaken extends Error {}

function isEmailTaken(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string } | undefined;
  return e?.code === '23505' && (e.constraint === undefined || e.constraint === 'users_email_lower_idx');
}

export async function insertUser(
  db: AuthDb,
  user: { id: string; tenant_id: string; email: string; password_hash: string; display_name: string | null; company: string | null },
): Promise<UserRow> {
  try {
    return await db.insertInto('auth.users').values(user).returning(COLUMNS).executeTakeFirstOrThrow();
  } catch (err) {
    if (isEmailTaken(err)) throw new EmailTaken();
    throw err;
  }
}

/** The account with this email in any case, with its password hash and its tenant's plan, for sign-in. */
export async function findUserForLogin(
  db: AuthDb,
  email: string,
): Promise<(UserRow & { password_hash: string; plan: Plan }) | undefined> {
  return db
    .selectFrom('auth.users as u')
    .innerJoin('auth.tenants as t', 't.id', 'u.tenant_id')
    .select(['u.id', 'u.tenant_id', 'u.email', 'u.display_name', 'u.company', 'u.created_at', 'u.password_hash', 't.plan'])
    .where(sql`lower(u.email)`, '=', email.toLowerCase())
    .executeTakeFirst();
}

/** The tenant's user; undefined for another tenant's. */
export async function findUser(db: AuthDb, tenantId: string, userId: string): Promise<UserRow | undefined> {
  return db.selectFrom('auth.users').select(COLUMNS).where('id', '=', userId).where('tenant_id', '=', tenantId).executeTakeFirst();
}

export async function updateUser(
  db: AuthDb,
  tenantId: string,
  userId: string,
  changes: { display_name?: string | null; company?: string | null },
): Promise<UserRow | undefined> {
  if (Object.keys(changes).length === 0) return findUser(db, tenantId, userId);
  return db
    .updateTable('auth.users')
    .set(changes)
    .where('id', '=', userId)
    .where('tenant_id', '=', tenantId)
    .returning(COLUMNS)
    .executeTakeFirst();
}
