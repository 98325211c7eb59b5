import type { ServiceAppOptions } from '@trove/platform';

/** The express Router type as the platform's signatures use it. */
export type Router = Parameters<ServiceAppOptions['routes']>[0];
