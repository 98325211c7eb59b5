import { RECORDS_LIST } from '@trove/contracts';
import type { Logger, ServiceClient } from '@trove/platform';

/** Whether a tenant has a collection; undefined when that cannot be told now. */
export type CollectionCheck = (tenantId: string, collection: string) => Promise<boolean | undefined>;

/**
 * Asks records, the system of record for collections, whether the tenant has one of this name: a collection is the
 * tenant's while one of its active records is in it, as GET /collections lists them. One record of its listing is
 * enough (an index lookup). Asked only when a search found nothing (docs/behaviour/search.md, "A collection that does
 * not exist"); when records cannot answer, the search answers without saying (logged).
 */
export function recordsCollectionCheck(records: Pick<ServiceClient, 'call'>, logger: Logger): CollectionCheck {
  return async (tenantId, collection) => {
    try {
      const page = await records.call(RECORDS_LIST, {
        body: { collection, limit: 1 },
        identity: { tenantId, principal: 'service:search', scopes: ['records'] },
      });
      return page.items.length > 0;
    } catch (err) {
      logger.warn({ tenantId, collection, reason: (err as Error).message }, 'records unreachable; an empty search answer does not say whether its collection exists');
      return undefined;
    }
  };
}
