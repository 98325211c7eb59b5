import { identityOf, type ServiceAppOptions } from '@trove/platform';

/** The express types, taken from the platform's signatures so this package needs no typings of its own. */
export type Router = Parameters<ServiceAppOptions['routes']>[0];
export type Request = Parameters<typeof identityOf>[0];

/** The tenant every query of a request is scoped to. */
export function tenantOf(req: Request): string {
  return identityOf(req).tenantId;
}
