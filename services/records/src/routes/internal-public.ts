import { z } from 'zod';
import { PUBLIC_RECORDS_MAX_IDS, PUBLIC_RECORDS_PATH, PUBLIC_VISIBLE_PATH, type PublicVisibleAnswer } from '@trove/contracts';
import { fields, parseInput } from '@trove/platform';
import type { Router } from '../http';
import type { RecordsService } from '../records-service';

const body = z.strictObject({ ids: z.array(fields.uuid).max(PUBLIC_RECORDS_MAX_IDS) });

/**
 * PUBLIC_RECORDS_PATH answers `{records}`: the full records among the ids that are public, active and of the active generation, in the
 * order asked. Any valid internal identity may ask; what it answers is public anyway.
 */
export function internalPublicRecordRoutes(router: Router, records: RecordsService): void {
  router.post(PUBLIC_RECORDS_PATH, async (req, res) => {
    const { ids } = parseInput(body, req.body ?? {}, 'body');
    const found = new Map((await records.publicRecords([...new Set(ids)])).map((r) => [r.id, r]));
    res.json({ records: ids.filter((id, i) => ids.indexOf(id) === i && found.has(id)).map((id) => found.get(id)!) });
  });

  /** PublicVisibleAnswer: which of the ids are public right now (as above), each with its tenant, in the order asked. */
  router.post(PUBLIC_VISIBLE_PATH, async (req, res) => {
    const { ids } = parseInput(body, req.body ?? {}, 'body');
    const unique = [...new Set(ids)];
    const tenants = new Map((await records.publicVisible(unique)).map((r) => [r.id, r.tenant_id]));
    const answer: PublicVisibleAnswer = { visible: unique.filter((id) => tenants.has(id)).map((id) => ({ id, tenant_id: tenants.get(id)! })) };
    res.json(answer);
  });
}
