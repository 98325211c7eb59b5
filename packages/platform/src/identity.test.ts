import jwt from 'jsonwebtoken';
import { hasScope, signIdentity, verifyIdentity, type Identity } from './identity';

const SECRET = 'internal-secret-of-at-least-32-characters!';
const identity: Identity = { tenantId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', principal: 'key:abc', scopes: ['search', 'upload'], plan: 'pro' };

/** A token with the gateway's issuer and audience, but claims of the test's choosing. */
function craft(claims: Record<string, unknown>, opts: jwt.SignOptions = {}, secret = SECRET): string {
  return jwt.sign(claims, secret, { algorithm: 'HS256', issuer: 'trove-gateway', audience: 'trove-services', subject: 'key:abc', ...opts });
}

describe('signIdentity and verifyIdentity', () => {
  it('round-trips tenant, principal, scopes and plan', () => {
    expect(verifyIdentity(signIdentity(identity, SECRET), SECRET)).toEqual(identity);
  });

  it('round-trips an identity without a plan', () => {
    const { plan: _plan, ...withoutPlan } = identity;

    expect(verifyIdentity(signIdentity(withoutPlan, SECRET), SECRET)).toEqual({ ...withoutPlan, plan: undefined });
  });

  it('signs a short-lived token', () => {
    const decoded = jwt.decode(signIdentity(identity, SECRET, 30)) as { iat: number; exp: number };

    expect(decoded.exp - decoded.iat).toBe(30);
  });

  it('rejects a missing or empty token', () => {
    expect(verifyIdentity(undefined, SECRET)).toBeUndefined();
    expect(verifyIdentity('', SECRET)).toBeUndefined();
  });

  it('rejects a token that is not a JWT', () => {
    expect(verifyIdentity('not-a-token', SECRET)).toBeUndefined();
  });

  it('rejects a token signed with another secret', () => {
    expect(verifyIdentity(signIdentity(identity, 'another-secret-of-at-least-32-characters'), SECRET)).toBeUndefined();
  });

  it('rejects an expired token', () => {
    const expired = craft({ tid: identity.tenantId, scopes: ['search'], exp: Math.floor(Date.now() / 1000) - 5 });

    expect(verifyIdentity(expired, SECRET)).toBeUndefined();
  });

  it('rejects a token whose payload was altered after signing', () => {
    const [header, , signature] = signIdentity(identity, SECRET).split('.');
    const forgedPayload = Buffer.from(
      JSON.stringify({ tid: identity.tenantId, sub: 'key:abc', scopes: ['admin'], iss: 'trove-gateway', aud: 'trove-services', exp: 9999999999 }),
    ).toString('base64url');

    expect(verifyIdentity(`${header}.${forgedPayload}.${signature}`, SECRET)).toBeUndefined();
  });

  it('rejects an unsigned token (alg none)', () => {
    const unsigned = jwt.sign({ tid: identity.tenantId, scopes: ['admin'] }, '', {
      algorithm: 'none',
      issuer: 'trove-gateway',
      audience: 'trove-services',
      subject: 'key:abc',
    });

    expect(verifyIdentity(unsigned, SECRET)).toBeUndefined();
  });

  it('rejects a token for another audience or from another issuer', () => {
    const claims = { tid: identity.tenantId, scopes: ['search'] };

    expect(verifyIdentity(craft(claims, { audience: 'someone-else' }), SECRET)).toBeUndefined();
    expect(verifyIdentity(craft(claims, { issuer: 'someone-else' }), SECRET)).toBeUndefined();
  });

  it('rejects a token whose claims do not describe an identity', () => {
    expect(verifyIdentity(craft({ scopes: ['search'] }), SECRET)).toBeUndefined();
    expect(verifyIdentity(craft({ tid: identity.tenantId, scopes: ['superuser'] }), SECRET)).toBeUndefined();
    const withoutSubject = jwt.sign({ tid: identity.tenantId, scopes: ['search'] }, SECRET, {
      algorithm: 'HS256',
      issuer: 'trove-gateway',
      audience: 'trove-services',
    });
    expect(verifyIdentity(withoutSubject, SECRET)).toBeUndefined();
  });
});

describe('hasScope', () => {
  it('grants a scope the identity holds and refuses one it lacks', () => {
    expect(hasScope({ scopes: ['search'] }, 'search')).toBe(true);
    expect(hasScope({ scopes: ['search'] }, 'upload')).toBe(false);
  });

  it('lets admin imply every scope', () => {
    for (const scope of ['search', 'upload', 'records', 'admin'] as const) expect(hasScope({ scopes: ['admin'] }, scope)).toBe(true);
  });
});
