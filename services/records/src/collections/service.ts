import type { CollectionStats, CollectionSummary } from '@trove/contracts';
import { ERRORS } from '@trove/platform';
import type { RecordWrites } from '../records/writes';
import type { Db } from '../shared/schema';
import { archiveGeneration } from './records-store';
import { collectionStats } from './stats-store';
import { activeGenerations, listCollections } from './store';

/** A tenant's collections: listed with their counts, and archived whole. */
export class CollectionsService {
  constructor(
    private readonly db: Db,
    private readonly writes: RecordWrites,
  ) {}

  /** The tenant's collections with their record types and counts, by name. */
  async list(tenantId: string): Promise<CollectionSummary[]> {
    return listCollections(this.db, tenantId);
  }

  /** The tenant's collections with their active and public record counts and last change, by name. */
  async stats(tenantId: string): Promise<CollectionStats[]> {
    return collectionStats(this.db, tenantId);
  }

  /**
   * Archives every record of the collection's active generation (a staged replace is left to its own routes); counts
   * them. 404 when the tenant has no such collection.
   */
  async archive(tenantId: string, collection: string): Promise<number> {
    const archivedNow = await this.writes.write(async (trx, announce) => {
      const generation = (await activeGenerations(trx, tenantId, [collection])).get(collection)?.active_generation;
      if (generation === undefined) throw ERRORS.notFound(`Collection ${collection} not found`);
      return announce('archived', await archiveGeneration(trx, tenantId, collection, generation));
    });
    await this.writes.settled(archivedNow);
    return archivedNow.length;
  }
}
