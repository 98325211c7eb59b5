import type { Endpoint } from '../endpoint';

/** Every public endpoint the connector service answers. */
export const CONNECTOR_API: readonly Endpoint[] = [];
