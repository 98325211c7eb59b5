import { PORTAL_REPLACE_CANCEL, PORTAL_REPLACE_STATUS, PORTAL_REPLACE_SWAP } from '@trove/contracts';
import { requirePortalUser, serve, tenantOf, type Router } from '@trove/platform';
import type { ReplaceService } from './service';

/** The portal's side of a blue-green replace: its status, the swap and the cancel (the upload is ingestion's). */
export function portalReplaceRoutes(router: Router, replace: ReplaceService): void {
  serve(router, PORTAL_REPLACE_STATUS, [requirePortalUser()], ({ params }, req) => replace.status(tenantOf(req), params.name));
  serve(router, PORTAL_REPLACE_SWAP, [requirePortalUser()], ({ params }, req) => replace.swap(tenantOf(req), params.name));
  serve(router, PORTAL_REPLACE_CANCEL, [requirePortalUser()], ({ params }, req) => replace.cancel(tenantOf(req), params.name));
}
