import type { ServiceAppOptions, requireScope } from '@trove/platform';

/** The express Router type as the platform's signatures use it. */
export type Router = Parameters<ServiceAppOptions['routes']>[0];

/** An express request handler, as the platform's middleware are typed. */
export type Handler = ReturnType<typeof requireScope>;
