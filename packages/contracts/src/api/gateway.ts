import type { Endpoint } from '../endpoint';

/** Every public endpoint the gateway service answers. */
export const GATEWAY_API: readonly Endpoint[] = [];
