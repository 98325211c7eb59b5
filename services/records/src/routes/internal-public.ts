import { z } from 'zod';
import { PUBLIC_RECORDS_MAX_IDS, PUBLIC_RECORDS_PATH } from '@trove/contracts';
import { fields, parseInput } from '@trove/platform';
import type { Router } from '../http';
import type { RecordsService } from '../records-service';

const body = z.strictObject({ ids: z.array(fields.uuid).max(PUBLIC_RECORDS_MAX_IDS) });

/**
 * Answers `{records}`: the full records among the ids that are public, active and of the active generation, in the
 * order asked. Any valid internal identity may ask; what it answers is public anyway.
 */
export function internalPublicRecordRoutes(router: Router, records: RecordsService): void {
  router.post(PUBLIC_RECORDS_PATH, async (req, res) => {
    const { ids } = parseInput(body, req.body ?? {}, 'body');
    const found = new Map((await records.publicRecords([...new Set(ids)])).map((r) => [r.id, r]));
    res.json({ records: ids.filter((id, i) => ids.indexOf(id) === i && found.has(id)).map((id) => found.get(id)!) });
  });
}
