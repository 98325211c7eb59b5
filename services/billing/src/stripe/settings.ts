import type { Plan } from '@trove/contracts';
import { ConfigError, type Config } from '@trove/platform';

/** The paid plans a checkout sells; each is one price of the payment provider. */
export const PAID_PLANS = ['pro', 'scale'] as const;
export type PaidPlan = (typeof PAID_PLANS)[number];

/** What billing needs of the payment provider, read once from the configuration. */
export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** Price id of each paid plan; a plan without one is not for sale here. */
  prices: Partial<Record<PaidPlan, string>>;
  /** Where the SDK sends its calls (STRIPE_API_URL split as the SDK's host, port and protocol settings take it). */
  api: { host: string; port: number; protocol: 'http' | 'https' };
  meterIntervalMs: number;
}

/**
 * The payment provider's settings in cloud mode, or undefined when self-hosted (where billing never constructs a
 * provider client, so no call can happen). Cloud mode without the secret key or the webhook secret is refused at
 * start-up: it would take checkouts it cannot confirm, or accept webhooks it cannot verify.
 */
export function stripeSettingsOf(config: Config): StripeSettings | undefined {
  if (config.DEPLOYMENT_MODE !== 'cloud') return undefined;
  const missing = [
    !config.STRIPE_SECRET_KEY && '  STRIPE_SECRET_KEY: is required when DEPLOYMENT_MODE=cloud',
    !config.STRIPE_WEBHOOK_SECRET && '  STRIPE_WEBHOOK_SECRET: is required when DEPLOYMENT_MODE=cloud',
  ].filter((m): m is string => typeof m === 'string');
  if (missing.length > 0) throw new ConfigError(`Invalid configuration:\n${missing.join('\n')}`);
  const url = new URL(config.STRIPE_API_URL);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return {
    secretKey: config.STRIPE_SECRET_KEY!,
    webhookSecret: config.STRIPE_WEBHOOK_SECRET!,
    prices: {
      ...(config.STRIPE_PRICE_PRO && { pro: config.STRIPE_PRICE_PRO }),
      ...(config.STRIPE_PRICE_SCALE && { scale: config.STRIPE_PRICE_SCALE }),
    },
    api: { host: url.hostname, port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443, protocol },
    meterIntervalMs: config.BILLING_METER_INTERVAL_MS,
  };
}

/** The paid plan a price id stands for, or undefined for a price this deployment does not sell. */
export function planOfPrice(settings: Pick<StripeSettings, 'prices'>, priceId: string | undefined): PaidPlan | undefined {
  if (!priceId) return undefined;
  return PAID_PLANS.find((plan) => settings.prices[plan] === priceId);
}

export function isPaidPlan(plan: Plan | string): plan is PaidPlan {
  return (PAID_PLANS as readonly string[]).includes(plan);
}
