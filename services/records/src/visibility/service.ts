import { archived, notFound, unique } from '../records/by-id';
import { lockRecords } from '../records/store';
import type { RecordWrites } from '../records/writes';
import type { Db } from '../shared/schema';
import { setCollectionVisibility, setDefaultVisibility, setVisibility } from './store';

export type Visibility = 'private' | 'public';

/** Who may see records: one record's visibility, many records', and the default a collection gives its new records. */
export class VisibilityService {
  constructor(
    private readonly db: Db,
    private readonly writes: RecordWrites,
  ) {}

  /** Sets one record's visibility; answers once the public index reflects it (or after the bounded wait). */
  async set(tenantId: string, id: string, visibility: Visibility): Promise<void> {
    const [dto] = await this.writes.write(async (trx, announce) => {
      const [row] = await lockRecords(trx, tenantId, [id]);
      if (!row) throw notFound(id);
      if (row.status === 'archived') throw archived(id);
      return announce('visibility', await setVisibility(trx, tenantId, [id], visibility));
    });
    if (dto) await this.writes.searchable(dto);
  }

  /** Sets the visibility of many records; counts the tenant's records that exist and are not archived. */
  async bulkSet(tenantId: string, ids: string[], visibility: Visibility): Promise<number> {
    return this.writes.write(async (trx, announce) => {
      const live = (await lockRecords(trx, tenantId, unique(ids))).filter((r) => r.status !== 'archived');
      announce(
        'visibility',
        await setVisibility(
          trx,
          tenantId,
          live.map((r) => r.id),
          visibility,
        ),
      );
      return live.length;
    });
  }

  async setDefault(tenantId: string, collection: string, visibility: Visibility): Promise<void> {
    await setDefaultVisibility(this.db, tenantId, collection, visibility);
  }

  /**
   * Sets the collection's default visibility and gives every active record of it that visibility, in one write
   * (creating the collection when it is new); counts the records it changed.
   */
  async applyDefault(tenantId: string, collection: string, visibility: Visibility): Promise<number> {
    const changed = await this.writes.write(async (trx, announce) => {
      await setDefaultVisibility(trx, tenantId, collection, visibility);
      return announce('visibility', await setCollectionVisibility(trx, tenantId, collection, visibility));
    });
    await this.writes.settled(changed);
    return changed.length;
  }
}
