import {
  RECORDS_REPLACE_ABORT_PATH,
  RECORDS_REPLACE_BEGIN_PATH,
  RECORDS_REPLACE_FINISH_PATH,
  replaceAbortRequest,
  replaceBeginRequest,
  replaceFinishRequest,
  type ReplaceBeginResponse,
} from '@trove/contracts';
import { identityOf, parseInput, requireScope, tenantOf } from '@trove/platform';
import type { Router } from '../http';
import type { ReplaceService } from '../replace-service';

/**
 * Internal: ingestion's replace upload opens a staging generation (checking the plan of the identity it acts with)
 * before it writes anything, writes the records through the bulk upsert with `generation`, then marks it finished, or
 * gives the staging up (abort) when it could not write the whole file.
 */
export function replaceInternalRoutes(router: Router, replace: ReplaceService): void {
  router.post(RECORDS_REPLACE_BEGIN_PATH, requireScope('upload'), async (req, res) => {
    const body = parseInput(replaceBeginRequest, req.body, 'body');
    const answer: ReplaceBeginResponse = await replace.begin(tenantOf(req), identityOf(req).plan, body.collection, body.new_records);
    res.json(answer);
  });

  router.post(RECORDS_REPLACE_FINISH_PATH, requireScope('upload'), async (req, res) => {
    const body = parseInput(replaceFinishRequest, req.body, 'body');
    await replace.finish(tenantOf(req), body.collection, body.generation, body.summary);
    res.status(204).end();
  });

  router.post(RECORDS_REPLACE_ABORT_PATH, requireScope('upload'), async (req, res) => {
    const body = parseInput(replaceAbortRequest, req.body, 'body');
    res.json(await replace.cancel(tenantOf(req), body.collection, body.generation));
  });
}
