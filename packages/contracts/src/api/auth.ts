import type { Endpoint } from '../endpoint';

/** Every public endpoint the auth service answers. */
export const AUTH_API: readonly Endpoint[] = [];
