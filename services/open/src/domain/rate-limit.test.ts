import { clientKey, decide, trustProxySetting } from './rate-limit';

describe('decide', () => {
  it('answers the three headers, remaining never below zero, reset in epoch seconds rounded up', () => {
    expect(decide(60, 1, 1_700_000_059_500, 1_700_000_000_000)).toEqual({
      allowed: true,
      retryAfterSeconds: 60,
      headers: { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '59', 'X-RateLimit-Reset': '1700000060' },
    });
    const over = decide(60, 61, 1_700_000_010_000, 1_700_000_009_900);
    expect(over.allowed).toBe(false);
    expect(over.headers['X-RateLimit-Remaining']).toBe('0');
    expect(over.retryAfterSeconds).toBe(1);
  });
});

describe('clientKey and trustProxySetting', () => {
  it('counts an IPv4-mapped address as the IPv4 address', () => {
    expect(clientKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(clientKey('2001:db8::1')).toBe('2001:db8::1');
    expect(clientKey(undefined)).toBe('unknown');
  });

  it('reads TRUSTED_PROXIES as a list, none or empty as trusting nobody', () => {
    expect(trustProxySetting('loopback')).toEqual(['loopback']);
    expect(trustProxySetting('loopback, 10.0.0.0/8')).toEqual(['loopback', '10.0.0.0/8']);
    expect(trustProxySetting('none')).toBe(false);
    expect(trustProxySetting(' ')).toBe(false);
  });
});
