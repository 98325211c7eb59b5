import { createPrivateKey, createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { z } from 'zod';
import type { Config } from './config';

/** Who signs portal tokens and who they are for; both are checked, so no other token of ours passes as one. */
const ISSUER = 'trove-auth';
const AUDIENCE = 'trove-portal';

/** What a portal token says: a person (user id) of a tenant on a plan. */
export interface PortalClaims {
  userId: string;
  tenantId: string;
  plan: string;
}

export type PortalTokenSettings = Pick<Config, 'JWT_SECRET' | 'JWT_PRIVATE_KEY' | 'JWT_PUBLIC_KEY' | 'JWT_TTL_SECONDS'>;

const claimsSchema = z.object({
  sub: z.string().min(1),
  tid: z.string().min(1),
  plan: z.string().min(1),
  // jsonwebtoken accepts a token without exp as never expiring; ours always carry one.
  exp: z.number(),
});

/**
 * Signs and verifies the tokens a person gets at portal sign-in: HS256 with JWT_SECRET, or RS256 with
 * JWT_PRIVATE_KEY (to sign, in auth) and JWT_PUBLIC_KEY (to verify, in the gateway; derived from the private key
 * when only that is set). Verification accepts only the configured algorithm, issuer and audience, so `alg: none`,
 * a token signed with another secret, key or algorithm, and an expired or malformed token all read as no token.
 * Made once from the configuration (keys are parsed here, not on every call).
 */
export class PortalTokens {
  readonly ttlSeconds: number;
  private readonly algorithm: 'HS256' | 'RS256';
  private readonly signingKey: KeyObject | undefined;
  private readonly verifyingKey: KeyObject;

  constructor(settings: PortalTokenSettings) {
    this.ttlSeconds = settings.JWT_TTL_SECONDS;
    if (settings.JWT_SECRET) {
      this.algorithm = 'HS256';
      this.signingKey = createSecretKey(Buffer.from(settings.JWT_SECRET, 'utf8'));
      this.verifyingKey = this.signingKey;
    } else if (settings.JWT_PRIVATE_KEY || settings.JWT_PUBLIC_KEY) {
      this.algorithm = 'RS256';
      this.signingKey = settings.JWT_PRIVATE_KEY ? createPrivateKey(settings.JWT_PRIVATE_KEY) : undefined;
      this.verifyingKey = createPublicKey(settings.JWT_PUBLIC_KEY ?? settings.JWT_PRIVATE_KEY!);
    } else {
      throw new Error('Portal tokens need JWT_SECRET, or JWT_PRIVATE_KEY/JWT_PUBLIC_KEY');
    }
  }

  /** Whether this process can issue tokens (a gateway given only JWT_PUBLIC_KEY cannot). */
  get canSign(): boolean {
    return this.signingKey !== undefined;
  }

  sign(claims: PortalClaims): string {
    if (!this.signingKey) throw new Error('Portal tokens cannot be signed without JWT_SECRET or JWT_PRIVATE_KEY');
    return jwt.sign({ tid: claims.tenantId, plan: claims.plan }, this.signingKey, {
      algorithm: this.algorithm,
      expiresIn: this.ttlSeconds,
      issuer: ISSUER,
      audience: AUDIENCE,
      subject: claims.userId,
    });
  }

  /** The claims of a valid token; undefined for anything else. */
  verify(token: string): PortalClaims | undefined {
    try {
      const decoded = jwt.verify(token, this.verifyingKey, { algorithms: [this.algorithm], issuer: ISSUER, audience: AUDIENCE });
      const claims = claimsSchema.safeParse(decoded);
      if (!claims.success) return undefined;
      return { userId: claims.data.sub, tenantId: claims.data.tid, plan: claims.data.plan };
    } catch {
      return undefined;
    }
  }
}
