import { createHmac, randomBytes } from 'node:crypto';
import { defaultPlan, type Plan } from '@trove/contracts';

export const KEY_PREFIX = 'sk_live_';

/** A new key value: the prefix and 32 random bytes as 64 lowercase hex characters. */
export function generateKeyValue(): string {
  return `${KEY_PREFIX}${randomBytes(32).toString('hex')}`;
}

/**
 * The only form in which a key value is stored. A keyed HMAC rather than a per-row salt, because the gateway hands
 * us a bare value and the row has to be found by it: the same value and salt always give the same hash.
 */
export function hashKeyValue(value: string, salt: string): string {
  return createHmac('sha256', salt).update(value, 'utf8').digest('hex');
}

export function isExpired(expiresAt: Date | null, now: Date): boolean {
  return expiresAt !== null && expiresAt.getTime() <= now.getTime();
}

/** last_used_at is written at most this often per key, so verifying a busy key does not write on every call. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

export function shouldRecordUse(lastUsedAt: Date | null, now: Date): boolean {
  return lastUsedAt === null || now.getTime() - lastUsedAt.getTime() >= LAST_USED_WRITE_INTERVAL_MS;
}

/** Cloud tenants start on free; self-hosted (the default) tenants are on enterprise, i.e. unlimited. */
export function planForNewTenant(deploymentMode: string | undefined): Plan {
  return defaultPlan(deploymentMode);
}

export const MESSAGES = {
  created: 'Store this key now: it is shown only once and cannot be retrieved again.',
  rotated: 'The previous value of this key stopped working. Store the new value now: it is shown only once.',
} as const;
