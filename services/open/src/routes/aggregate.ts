import { OPEN_AGGREGATE } from '@trove/contracts';
import { serve, type Router } from '@trove/platform';
import type { OpenService } from '../open-service';

/**
 * Total, the 50 largest groups (ties by value) and numeric stats over the public records the filters select. The body
 * is the internal public aggregation's, passed on as read.
 */
export function aggregateRoutes(router: Router, open: OpenService): void {
  serve(router, OPEN_AGGREGATE, ({ body }, req) => open.aggregate(body, req.id));
}
