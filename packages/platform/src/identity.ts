import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { SCOPES, SERVICE_NAMES, type Scope, type ServiceName } from '@trove/contracts';

export { SCOPES, type Scope };

/** Who a request acts for, as the gateway established it. */
export interface Identity {
  tenantId: string;
  /** `key:<id>`, `dev:<tenant>`, `user:<id>` or `service:<name>`. */
  principal: string;
  scopes: Scope[];
  plan?: string;
  /**
   * The service that made this call on the identity's behalf (signed as the `svc` claim). Only ServiceClient sets
   * it; the gateway never does, so a request that came in from outside never has one. A service's /internal routes
   * answer only requests that have one.
   */
  caller?: ServiceName;
}

export const IDENTITY_HEADER = 'x-trove-identity';
const ISSUER = 'trove-gateway';
const AUDIENCE = 'trove-services';

const claimsSchema = z.object({
  tid: z.string(),
  sub: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  plan: z.string().optional(),
  svc: z.enum(SERVICE_NAMES).optional(),
});

const keys = new Map<string, KeyObject>();

/**
 * The secret as a key object, made once. Given a string, jsonwebtoken first tries (and fails) to read it as a PEM
 * key on every call, which costs about half a millisecond per token; every proxied request signs and verifies one.
 */
function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    keys.set(secret, key);
  }
  return key;
}

/**
 * Tokens signed and verified lately. Every forwarded request and every call between services signs one and the
 * service verifies it, mostly for the same few identities: a token is signed again only once half its lifetime has
 * passed, and a token already verified is taken at its word until it expires (the same string carries the same
 * signature).
 */
const signed = new LRUCache<string, { token: string; renewAt: number }>({ max: 10_000 });
const verified = new LRUCache<string, { identity: Identity; expiresAt: number }>({ max: 10_000 });

/** Signs the short-lived internal token the gateway forwards to services. */
export function signIdentity(identity: Identity, secret: string, ttlSeconds = 60): string {
  const key = JSON.stringify([secret, ttlSeconds, identity.tenantId, identity.principal, identity.scopes, identity.plan ?? null, identity.caller ?? null]);
  const now = Date.now();
  const known = signed.get(key);
  if (known && now < known.renewAt) return known.token;
  const token = sign(identity, secret, ttlSeconds);
  signed.set(key, { token, renewAt: now + (ttlSeconds * 1000) / 2 });
  return token;
}

function sign(identity: Identity, secret: string, ttlSeconds: number): string {
  return jwt.sign(
    {
      tid: identity.tenantId,
      scopes: identity.scopes,
      ...(identity.plan ? { plan: identity.plan } : {}),
      ...(identity.caller ? { svc: identity.caller } : {}),
    },
    keyOf(secret),
    { algorithm: 'HS256', expiresIn: ttlSeconds, issuer: ISSUER, audience: AUDIENCE, subject: identity.principal },
  );
}

/** Verifies an internal token; returns undefined for a missing, forged or expired one. */
export function verifyIdentity(token: string | undefined, secret: string): Identity | undefined {
  if (!token) return undefined;
  const key = `${secret}\u0000${token}`;
  const known = verified.get(key);
  if (known && Date.now() < known.expiresAt) return { ...known.identity, scopes: [...known.identity.scopes] };
  try {
    const decoded = jwt.verify(token, keyOf(secret), { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE });
    const claims = claimsSchema.safeParse(decoded);
    if (!claims.success) return undefined;
    const { tid, sub, scopes, plan, svc } = claims.data;
    const identity: Identity = { tenantId: tid, principal: sub, scopes, plan, ...(svc ? { caller: svc } : {}) };
    const exp = (decoded as { exp?: number }).exp;
    if (typeof exp === 'number') verified.set(key, { identity, expiresAt: exp * 1000 });
    return { ...identity, scopes: [...scopes] };
  } catch {
    return undefined;
  }
}

/** admin implies every other scope. */
export function hasScope(identity: Pick<Identity, 'scopes'>, required: Scope): boolean {
  return identity.scopes.includes('admin') || identity.scopes.includes(required);
}
