import { keyChangedBy, readCredential } from './credentials';

const KEY = `sk_live_${'0123456789abcdef'.repeat(4)}`;
const TENANT = '6f1c2a9e-3b7d-4c1a-9e2f-0a1b2c3d4e5f';

describe('reading credentials', () => {
  it('reads a bearer API key', () => {
    expect(readCredential({ authorization: `Bearer ${KEY}` }, false)).toEqual({ kind: 'key', value: KEY });
    expect(readCredential({ authorization: `bearer ${KEY}` }, false)).toEqual({ kind: 'key', value: KEY });
  });

  it('treats a key-like value of the wrong shape as malformed', () => {
    expect(readCredential({ authorization: `Bearer ${KEY.toUpperCase().replace('SK_LIVE_', 'sk_live_')}` }, false).kind).toBe('malformed');
    expect(readCredential({ authorization: 'Bearer sk_live_abc' }, false).kind).toBe('malformed');
    expect(readCredential({ authorization: KEY }, false).kind).toBe('malformed');
  });

  it('reads another bearer token as a portal token', () => {
    expect(readCredential({ authorization: 'Bearer eyJ.x.y' }, false)).toEqual({ kind: 'token', value: 'eyJ.x.y' });
  });

  it('accepts X-Tenant-Id only when development mode allows it', () => {
    expect(readCredential({ tenantId: TENANT }, true)).toEqual({ kind: 'dev-tenant', tenantId: TENANT });
    expect(readCredential({ tenantId: TENANT }, false)).toEqual({ kind: 'none' });
    expect(readCredential({ tenantId: 'acme' }, true).kind).toBe('malformed');
  });

  it('prefers the Authorization header over X-Tenant-Id', () => {
    expect(readCredential({ authorization: `Bearer ${KEY}`, tenantId: TENANT }, true)).toEqual({ kind: 'key', value: KEY });
  });

  it('finds nothing when nothing is presented', () => {
    expect(readCredential({}, true)).toEqual({ kind: 'none' });
  });
});

describe('key changes', () => {
  const id = '6F1C2A9E-3B7D-4C1A-9E2F-0A1B2C3D4E5F';

  it('names the key a revoke or rotate acts on', () => {
    expect(keyChangedBy('DELETE', `/api/v1/auth/keys/${id}`)).toBe(id.toLowerCase());
    expect(keyChangedBy('POST', `/api/v1/auth/keys/${id}/rotate`)).toBe(id.toLowerCase());
    expect(keyChangedBy('DELETE', `/api/v1/portal/keys/${id}`)).toBe(id.toLowerCase());
    expect(keyChangedBy('POST', `/api/v1/portal/keys/${id}/rotate`)).toBe(id.toLowerCase());
  });

  it('reads the segments after the route prefix in any case, as auth routes them', () => {
    expect(keyChangedBy('DELETE', `/api/v1/auth/KEYS/${id}`)).toBe(id.toLowerCase());
    expect(keyChangedBy('POST', `/api/v1/auth/Keys/${id}/ROTATE`)).toBe(id.toLowerCase());
  });

  it('names nothing for other requests', () => {
    expect(keyChangedBy('GET', `/api/v1/auth/keys/${id}`)).toBeUndefined();
    expect(keyChangedBy('POST', '/api/v1/auth/keys')).toBeUndefined();
    expect(keyChangedBy('DELETE', `/api/v1/auth/keys/${id}/rotate`)).toBeUndefined();
  });
});
