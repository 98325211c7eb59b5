import { createHmac, generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { loadConfig } from './config';
import { PortalTokens } from './portal-token';

const SECRET = 'a-portal-token-secret-of-at-least-32-chars';
const claims = { userId: '6f1c2a7e-5b7d-4d89-9a3c-0d4f0e2b1a11', tenantId: '0b8e6a52-3f3c-4b53-8d43-5a2f8e1c9d20', plan: 'free' };
const hs = new PortalTokens({ JWT_SECRET: SECRET, JWT_TTL_SECONDS: 3600 });

const rsaPair = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);
/** The payload a genuine token carries, for forging variants of it. */
const payload = (over: Record<string, unknown> = {}) => ({
  sub: claims.userId,
  tid: claims.tenantId,
  plan: claims.plan,
  iss: 'trove-auth',
  aud: 'trove-portal',
  iat: now(),
  exp: now() + 3600,
  ...over,
});

describe('portal tokens', () => {
  it('gives back the user, tenant and plan of a token it signed, which expires after JWT_TTL_SECONDS', () => {
    const token = hs.sign(claims);

    expect(hs.verify(token)).toEqual(claims);
    const decoded = jwt.decode(token) as Record<string, number>;
    expect(decoded.exp! - decoded.iat!).toBe(3600);
  });

  it('refuses an unsigned token (alg: none)', () => {
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(payload())}.`;

    expect(hs.verify(unsigned)).toBeUndefined();
  });

  it('refuses a token signed with another secret', () => {
    expect(hs.verify(jwt.sign(payload(), 'another-secret-of-at-least-32-characters!!'))).toBeUndefined();
    expect(new PortalTokens({ JWT_SECRET: 'x'.repeat(32), JWT_TTL_SECONDS: 3600 }).verify(hs.sign(claims))).toBeUndefined();
  });

  it('refuses a token signed with another algorithm, even with the right secret', () => {
    expect(hs.verify(jwt.sign(payload(), SECRET, { algorithm: 'HS512' }))).toBeUndefined();
    const { privateKey } = rsaPair();
    expect(hs.verify(jwt.sign(payload(), privateKey, { algorithm: 'RS256' }))).toBeUndefined();
  });

  it('refuses an expired token, and one without an expiry', () => {
    expect(hs.verify(jwt.sign(payload({ iat: now() - 7200, exp: now() - 1 }), SECRET))).toBeUndefined();
    const { exp: _exp, ...forever } = payload();
    expect(hs.verify(jwt.sign(forever, SECRET))).toBeUndefined();
  });

  it('refuses a token of another issuer or audience', () => {
    expect(hs.verify(jwt.sign(payload({ iss: 'someone-else' }), SECRET))).toBeUndefined();
    expect(hs.verify(jwt.sign(payload({ aud: 'trove-services' }), SECRET))).toBeUndefined();
  });

  it('refuses a token without a tenant or plan, and malformed ones', () => {
    const { tid: _tid, ...noTenant } = payload();
    expect(hs.verify(jwt.sign(noTenant, SECRET))).toBeUndefined();
    const header = b64({ alg: 'HS256', typ: 'JWT' });
    const body = b64(payload());
    const sig = createHmac('sha256', SECRET).update(`${header}.${body}`).digest('base64url');
    expect(hs.verify(`${header}.${body}.${sig}`)).toEqual(claims);
    for (const bad of ['', 'not-a-token', `${header}.${body}`, `${header}.${body}.${sig}x`, `${header}x.${body}.${sig}`]) {
      expect(hs.verify(bad)).toBeUndefined();
    }
  });

  it('signs with RS256 and verifies with the public key alone, refusing the public key used as an HS256 secret', () => {
    const { privateKey, publicKey } = rsaPair();
    const signer = new PortalTokens({ JWT_PRIVATE_KEY: privateKey, JWT_TTL_SECONDS: 600 });
    const verifier = new PortalTokens({ JWT_PUBLIC_KEY: publicKey, JWT_TTL_SECONDS: 600 });
    const token = signer.sign(claims);

    expect((jwt.decode(token, { complete: true }) as { header: { alg: string } }).header.alg).toBe('RS256');
    expect(verifier.verify(token)).toEqual(claims);
    expect(verifier.canSign).toBe(false);
    expect(() => verifier.sign(claims)).toThrow();
    expect(verifier.verify(jwt.sign(payload(), publicKey, { algorithm: 'HS256' }))).toBeUndefined();
    expect(verifier.verify(hs.sign(claims))).toBeUndefined();
    expect(verifier.verify(new PortalTokens({ JWT_PRIVATE_KEY: rsaPair().privateKey, JWT_TTL_SECONDS: 600 }).sign(claims))).toBeUndefined();
  });
});

describe('portal token configuration', () => {
  it('makes a random secret for a development process given none, and says so', () => {
    const config = loadConfig({ ENV: 'development' });

    expect(config.generatedJwtSecret).toBe(true);
    expect(config.JWT_SECRET).toMatch(/^[0-9a-f]{64}$/);
    expect(config.JWT_TTL_SECONDS).toBe(3600);
  });

  it('requires JWT_SECRET or a key in production, and a secret of 32 characters', () => {
    const production = { ENV: 'production', INTERNAL_TOKEN_SECRET: 's'.repeat(32), API_KEY_SALT: 'p'.repeat(16) };

    expect(() => loadConfig(production)).toThrow(/JWT_SECRET: is required when ENV=production/);
    expect(() => loadConfig({ ...production, JWT_SECRET: 'short' })).toThrow(/JWT_SECRET: must be at least 32 characters/);
    expect(loadConfig({ ...production, JWT_SECRET: SECRET }).generatedJwtSecret).toBe(false);
    expect(loadConfig({ ...production, JWT_PUBLIC_KEY: rsaPair().publicKey }).JWT_SECRET).toBeUndefined();
  });

  it('reads PEM keys written with \\n, and refuses a secret with keys, unreadable keys and keys that do not pair', () => {
    const { privateKey, publicKey } = rsaPair();
    const config = loadConfig({ ENV: 'development', JWT_PRIVATE_KEY: privateKey.replace(/\n/g, '\\n'), JWT_PUBLIC_KEY: publicKey });
    expect(new PortalTokens(config).verify(new PortalTokens(config).sign(claims))).toEqual(claims);

    expect(() => loadConfig({ ENV: 'development', JWT_SECRET: SECRET, JWT_PUBLIC_KEY: publicKey })).toThrow(/JWT_SECRET: must not be set together/);
    expect(() => loadConfig({ ENV: 'development', JWT_PRIVATE_KEY: 'garbage' })).toThrow(/JWT_PRIVATE_KEY: must be an RSA private key/);
    expect(() => loadConfig({ ENV: 'development', JWT_PUBLIC_KEY: 'garbage' })).toThrow(/JWT_PUBLIC_KEY: must be an RSA public key/);
    expect(() => loadConfig({ ENV: 'development', JWT_PRIVATE_KEY: privateKey, JWT_PUBLIC_KEY: rsaPair().publicKey })).toThrow(
      /JWT_PUBLIC_KEY: is not the public half of JWT_PRIVATE_KEY/,
    );
    expect(() => loadConfig({ ENV: 'development', JWT_TTL_SECONDS: '10' })).toThrow(/JWT_TTL_SECONDS/);
  });
});
