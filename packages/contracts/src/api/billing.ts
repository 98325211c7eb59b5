import type { Endpoint } from '../endpoint';

/** Every public endpoint the billing service answers. */
export const BILLING_API: readonly Endpoint[] = [];
