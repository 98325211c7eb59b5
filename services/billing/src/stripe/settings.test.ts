import { ConfigError, loadConfig } from '@trove/platform';
import { periodsToMeter } from './metering';
import { planOfPrice, stripeSettingsOf } from './settings';

const cloud = { ENV: 'test', DEPLOYMENT_MODE: 'cloud', STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x' };

describe('stripeSettingsOf', () => {
  it('is undefined when self-hosted, whatever provider settings are given', () => {
    expect(stripeSettingsOf(loadConfig({ ...cloud, DEPLOYMENT_MODE: 'self_hosted' }))).toBeUndefined();
  });

  it('refuses cloud mode without the secret key or the webhook secret, naming each', () => {
    const read = (env: Record<string, string>) => () => stripeSettingsOf(loadConfig(env));
    expect(read({ ENV: 'test', DEPLOYMENT_MODE: 'cloud' })).toThrow(ConfigError);
    expect(read({ ENV: 'test', DEPLOYMENT_MODE: 'cloud' })).toThrow(/STRIPE_SECRET_KEY: is required[\s\S]*STRIPE_WEBHOOK_SECRET: is required/);
    expect(read({ ...cloud, STRIPE_WEBHOOK_SECRET: '' })).toThrow(/STRIPE_WEBHOOK_SECRET/);
  });

  it("splits STRIPE_API_URL into the SDK's host, port and protocol, the provider's own by default", () => {
    expect(stripeSettingsOf(loadConfig(cloud))!.api).toEqual({ host: 'api.stripe.com', port: 443, protocol: 'https' });
    expect(stripeSettingsOf(loadConfig({ ...cloud, STRIPE_API_URL: 'http://127.0.0.1:12111' }))!.api).toEqual({ host: '127.0.0.1', port: 12111, protocol: 'http' });
  });

  it('reads a plan from its price id, and no plan from another price', () => {
    const settings = stripeSettingsOf(loadConfig({ ...cloud, STRIPE_PRICE_PRO: 'price_p', STRIPE_PRICE_SCALE: 'price_s' }))!;
    expect(planOfPrice(settings, 'price_p')).toBe('pro');
    expect(planOfPrice(settings, 'price_s')).toBe('scale');
    expect(planOfPrice(settings, 'price_other')).toBeUndefined();
    expect(planOfPrice(settings, undefined)).toBeUndefined();
  });
});

describe('periodsToMeter', () => {
  it('meters the current month, and on the first day of a month the one before too', () => {
    expect(periodsToMeter(new Date('2026-03-15T10:00:00Z'))).toEqual(['2026-03']);
    expect(periodsToMeter(new Date('2026-03-01T00:02:00Z'))).toEqual(['2026-02', '2026-03']);
    expect(periodsToMeter(new Date('2026-01-01T00:02:00Z'))).toEqual(['2025-12', '2026-01']);
  });
});
