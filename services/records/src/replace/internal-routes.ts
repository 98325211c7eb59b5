import { RECORDS_REPLACE_ABORT, RECORDS_REPLACE_BEGIN, RECORDS_REPLACE_FINISH } from '@trove/contracts';
import { identityOf, requireScope, serve, tenantOf, type Router } from '@trove/platform';
import type { ReplaceService } from './service';

/**
 * Internal: ingestion's replace upload opens a staging generation (checking the plan of the identity it acts with)
 * before it writes anything, writes the records through the bulk upsert with `generation`, then marks it finished, or
 * gives the staging up (abort) when it could not write the whole file.
 */
export function replaceInternalRoutes(router: Router, replace: ReplaceService): void {
  serve(router, RECORDS_REPLACE_BEGIN, [requireScope('upload')], ({ body }, req) =>
    replace.begin(tenantOf(req), identityOf(req).plan, body.collection, body.new_records),
  );
  serve(router, RECORDS_REPLACE_FINISH, [requireScope('upload')], async ({ body }, req) => {
    await replace.finish(tenantOf(req), body.collection, body.generation, body.summary);
    return undefined;
  });
  serve(router, RECORDS_REPLACE_ABORT, [requireScope('upload')], ({ body }, req) => replace.cancel(tenantOf(req), body.collection, body.generation));
}
