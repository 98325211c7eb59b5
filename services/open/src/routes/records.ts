import { OPEN_RECORD } from '@trove/contracts';
import { serve, type Router } from '@trove/platform';
import type { OpenService } from '../open-service';

export function recordRoutes(router: Router, open: OpenService): void {
  /** Missing, private, draft and archived records answer the same 404, so nothing about them leaks. */
  serve(router, OPEN_RECORD, ({ params }, req) => open.record(params.record_id, req.id));
}
