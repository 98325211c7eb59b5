import { PUBLIC_RECORDS, PUBLIC_VISIBLE } from '@trove/contracts';
import { serve, type Router } from '@trove/platform';
import type { PublicService } from './service';

/** PUBLIC_RECORDS and PUBLIC_VISIBLE: what of the ids asked is public right now, in the order asked. */
export function internalPublicRecordRoutes(router: Router, publicRecords: PublicService): void {
  serve(router, PUBLIC_RECORDS, async ({ body }) => {
    const unique = [...new Set(body.ids)];
    const found = new Map((await publicRecords.records(unique)).map((r) => [r.id, r]));
    return { records: inAskedOrder(unique, found) };
  });

  serve(router, PUBLIC_VISIBLE, async ({ body }) => {
    const unique = [...new Set(body.ids)];
    const found = new Map((await publicRecords.visible(unique)).map((r) => [r.id, r]));
    return { visible: inAskedOrder(unique, found) };
  });
}

/** What was found of the ids asked, in the order asked. */
function inAskedOrder<T>(ids: string[], found: Map<string, T>): T[] {
  return ids.flatMap((id) => {
    const item = found.get(id);
    return item === undefined ? [] : [item];
  });
}
