import { checkLiteralHost, RefusedHostError, refusedReason, resolveHost } from './address-guard';

describe('the SSRF rule of cloud mode', () => {
  it.each(['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fd00:ec2::254', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.1.2.3'])(
    'refuses %s',
    (address) => {
      expect(refusedReason(address)).toBeDefined();
    },
  );

  it.each(['8.8.8.8', '2001:4860:4860::8888', '::ffff:8.8.8.8'])('lets %s through', (address) => {
    expect(refusedReason(address)).toBeUndefined();
  });

  it('checks a literal host as written, IPv6 brackets included', () => {
    expect(() => checkLiteralHost('[::1]')).toThrow(RefusedHostError);
    expect(() => checkLiteralHost('169.254.169.254')).toThrow(/link-local/);
    expect(() => checkLiteralHost('db.example.com')).not.toThrow();
  });

  it('refuses a name that resolves to a loopback address, naming the address', async () => {
    await expect(resolveHost('localhost')).rejects.toThrow(/localhost \(it resolves to (127\.0\.0\.1|::1)\)/);
  });
});
