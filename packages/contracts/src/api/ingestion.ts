import type { Endpoint } from '../endpoint';

/** Every public endpoint the ingestion service answers. */
export const INGESTION_API: readonly Endpoint[] = [];
