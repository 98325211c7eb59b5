import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { z } from 'zod';
import { SERVICE_NAMES, type ServiceName } from './config';

export const SCOPES = ['search', 'upload', 'records', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

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

/** Signs the short-lived internal token the gateway forwards to services. */
export function signIdentity(identity: Identity, secret: string, ttlSeconds = 60): string {
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
  try {
    const decoded = jwt.verify(token, keyOf(secret), { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE });
    const claims = claimsSchema.safeParse(decoded);
    if (!claims.success) return undefined;
    const { tid, sub, scopes, plan, svc } = claims.data;
    return { tenantId: tid, principal: sub, scopes, plan, ...(svc ? { caller: svc } : {}) };
  } catch {
    return undefined;
  }
}

/** admin implies every other scope. */
export function hasScope(identity: Pick<Identity, 'scopes'>, required: Scope): boolean {
  return identity.scopes.includes('admin') || identity.scopes.includes(required);
}
