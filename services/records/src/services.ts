import type { EventBus } from '@trove/bus';
import { AdminService } from './admin/service';
import { CollectionsService } from './collections/service';
import { PortalService } from './collections/portal-service';
import { IndexingService } from './indexing/service';
import { PublicService } from './public/service';
import { RecordsService } from './records/service';
import { RecordWrites, type IndexingWait } from './records/writes';
import { ReplaceService } from './replace/service';
import type { Db } from './shared/schema';
import { UpsertService } from './upsert/service';
import { VisibilityService } from './visibility/service';

/** The services of the records app, one per feature (the export's, which runs in the background, aside). */
export interface RecordsServices {
  records: RecordsService;
  upsert: UpsertService;
  visibility: VisibilityService;
  collections: CollectionsService;
  portal: PortalService;
  indexing: IndexingService;
  publicRecords: PublicService;
  replace: ReplaceService;
  admin: AdminService;
}

/**
 * Every feature's service over one database handle and one bus. With `indexing`, writes and swaps answer once search
 * has them (within its bound); without it, at commit.
 */
export function createServices(db: Db, bus: EventBus, indexing?: IndexingWait): RecordsServices {
  const writes = new RecordWrites(db, bus, indexing);
  const collections = new CollectionsService(db, writes);
  return {
    records: new RecordsService(db, writes),
    upsert: new UpsertService(db, writes),
    visibility: new VisibilityService(db, writes),
    collections,
    portal: new PortalService(db, collections),
    indexing: new IndexingService(db, writes),
    publicRecords: new PublicService(db),
    replace: new ReplaceService(db, bus, indexing?.timeoutMs),
    admin: new AdminService(db, bus),
  };
}
