import type { Endpoint } from '../endpoint';

/** Every public endpoint the records service answers. */
export const RECORDS_API: readonly Endpoint[] = [];
