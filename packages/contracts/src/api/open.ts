import type { Endpoint } from '../endpoint';

/** Every public endpoint the open service answers. */
export const OPEN_API: readonly Endpoint[] = [];
