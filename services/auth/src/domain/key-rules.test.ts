import { generateKeyValue, hashKeyValue, isExpired, planForNewTenant, shouldRecordUse } from './key-rules';

describe('key values', () => {
  it('look like sk_live_ followed by 64 lowercase hex characters', () => {
    for (let i = 0; i < 20; i++) expect(generateKeyValue()).toMatch(/^sk_live_[0-9a-f]{64}$/);
  });

  it('are different every time', () => {
    const values = new Set(Array.from({ length: 100 }, generateKeyValue));
    expect(values.size).toBe(100);
  });
});

describe('key hashing', () => {
  const value = 'sk_live_' + 'ab'.repeat(32);

  it('gives the same hash for the same value and salt, so a key can be looked up by its value', () => {
    expect(hashKeyValue(value, 'salt-one-0123456789')).toBe(hashKeyValue(value, 'salt-one-0123456789'));
  });

  it('gives a different hash under a different salt', () => {
    expect(hashKeyValue(value, 'salt-one-0123456789')).not.toBe(hashKeyValue(value, 'salt-two-0123456789'));
  });

  it('never contains the key value', () => {
    const hash = hashKeyValue(value, 'salt-one-0123456789');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(value.slice(8));
  });
});

describe('expiry', () => {
  const now = new Date('2030-01-01T00:00:00Z');

  it('treats a key without expiry as never expired', () => {
    expect(isExpired(null, now)).toBe(false);
  });

  it('treats a key as expired from the moment of its expires_at', () => {
    expect(isExpired(new Date('2030-01-01T00:00:00Z'), now)).toBe(true);
    expect(isExpired(new Date('2030-01-01T00:00:01Z'), now)).toBe(false);
  });
});

describe('last use', () => {
  const now = new Date('2030-01-01T00:10:00Z');

  it('is recorded for a key never used', () => {
    expect(shouldRecordUse(null, now)).toBe(true);
  });

  it('is recorded again only once a minute has passed', () => {
    expect(shouldRecordUse(new Date('2030-01-01T00:09:30Z'), now)).toBe(false);
    expect(shouldRecordUse(new Date('2030-01-01T00:09:00Z'), now)).toBe(true);
  });
});

describe('plans of new tenants', () => {
  it('are enterprise when self-hosted, the default', () => {
    expect(planForNewTenant(undefined)).toBe('enterprise');
    expect(planForNewTenant('self_hosted')).toBe('enterprise');
  });

  it('are free in the cloud deployment', () => {
    expect(planForNewTenant('cloud')).toBe('free');
  });
});
