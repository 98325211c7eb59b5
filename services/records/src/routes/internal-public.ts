import { z } from 'zod';
import { PUBLIC_RECORDS_MAX_IDS, PUBLIC_RECORDS_PATH, PUBLIC_VISIBLE_PATH, type PublicVisibleAnswer } from '@trove/contracts';
import { fields, parseInput, type Router } from '@trove/platform';
import type { RecordsService } from '../records-service';

const body = z.strictObject({ ids: z.array(fields.uuid).max(PUBLIC_RECORDS_MAX_IDS) });

/**
 * PUBLIC_RECORDS_PATH answers `{records}`: the full records among the ids that are public, active and of the active
 * generation, in the order asked. Any valid internal identity may ask; what it answers is public anyway.
 */
export function internalPublicRecordRoutes(router: Router, records: RecordsService): void {
  router.post(PUBLIC_RECORDS_PATH, async (req, res) => {
    const { ids } = parseInput(body, req.body ?? {}, 'body');
    const unique = [...new Set(ids)];
    const found = new Map((await records.publicRecords(unique)).map((r) => [r.id, r]));
    res.json({ records: inAskedOrder(unique, found) });
  });

  /** PublicVisibleAnswer: which of the ids are public right now (as above), each with its tenant, in the order asked. */
  router.post(PUBLIC_VISIBLE_PATH, async (req, res) => {
    const { ids } = parseInput(body, req.body ?? {}, 'body');
    const unique = [...new Set(ids)];
    const found = new Map((await records.publicVisible(unique)).map((r) => [r.id, r]));
    const answer: PublicVisibleAnswer = { visible: inAskedOrder(unique, found) };
    res.json(answer);
  });
}

/** What was found of the ids asked, in the order asked. */
function inAskedOrder<T>(ids: string[], found: Map<string, T>): T[] {
  return ids.flatMap((id) => {
    const item = found.get(id);
    return item === undefined ? [] : [item];
  });
}
