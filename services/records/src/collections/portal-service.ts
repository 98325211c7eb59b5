import { PLAN_LIMITS, type Plan } from '@trove/contracts';
import type { Db, IndexingStatus } from '../shared/schema';
import { browseRecords, collectionsWithPendingReplace, type BrowseFilter } from './records-store';
import { defaultVisibilities } from './store';
import type { CollectionsService } from './service';

/** One collection as the portal lists it: its active generation's active records, and whether a replace is staged. */
export interface PortalCollection {
  name: string;
  record_types: string[];
  total_records: number;
  indexed: number;
  pending: number;
  processing: number;
  failed: number;
  has_pending_replace: boolean;
  /** The visibility the collection's new records take. */
  default_visibility: 'private' | 'public';
}

export interface PortalCollectionsAnswer {
  collections: PortalCollection[];
  plan: Plan;
  /** The plan's record limit; null when unlimited. */
  record_limit: number | null;
  /** The tenant's active records of every collection's active generation. */
  total_records: number;
}

export interface PortalRecordItem {
  id: string;
  name: string;
  description: string | null;
  collection: string;
  record_type: string;
  indexing_status: IndexingStatus;
  collection_data: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

/** What the portal reads that the key routes do not: collection summaries with the plan, and offset-paged browsing. */
export class PortalService {
  constructor(
    private readonly db: Db,
    private readonly collectionsService: CollectionsService,
  ) {}

  async collections(tenantId: string, plan: Plan): Promise<PortalCollectionsAnswer> {
    const [summaries, staged, visibilities] = await Promise.all([
      this.collectionsService.list(tenantId),
      collectionsWithPendingReplace(this.db, tenantId),
      defaultVisibilities(this.db, tenantId),
    ]);
    // Every listed collection has a settings row (records and staged replaces are written through it); 'private' is
    // the column's default should one ever lack it.
    const visibilityOf = (name: string) => visibilities.get(name) ?? 'private';
    const collections: PortalCollection[] = summaries.map(({ record_type_counts: _counts, ...s }) => ({
      ...s,
      has_pending_replace: staged.has(s.name),
      default_visibility: visibilityOf(s.name),
    }));
    // A collection whose records were all archived still shows while a replace into it is staged, so it can be swapped.
    for (const name of staged) {
      if (!collections.some((c) => c.name === name)) {
        collections.push({
          name,
          record_types: [],
          total_records: 0,
          indexed: 0,
          pending: 0,
          processing: 0,
          failed: 0,
          has_pending_replace: true,
          default_visibility: visibilityOf(name),
        });
      }
    }
    collections.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return {
      collections,
      plan,
      record_limit: PLAN_LIMITS[plan].records,
      total_records: collections.reduce((sum, c) => sum + c.total_records, 0),
    };
  }

  async browse(filter: BrowseFilter): Promise<{ items: PortalRecordItem[]; total: number }> {
    const { rows, total } = await browseRecords(this.db, filter);
    const items = rows.map((r) => ({ ...r, created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString() }));
    return { items, total };
  }
}
