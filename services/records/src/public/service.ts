import type { Db } from '../shared/schema';
import { publicRecords, publicVisible } from './store';

/** What anyone may see of every tenant's records, read from the system of record for the Open API (open calls it). */
export class PublicService {
  constructor(private readonly db: Db) {}

  /** The records among `ids` that anyone may see (public, active, of the active generation), of any tenant. */
  records(ids: string[]) {
    return publicRecords(this.db, ids);
  }

  /** Which of `ids` anyone may see, each with its tenant, the records themselves not read. */
  visible(ids: string[]) {
    return publicVisible(this.db, ids);
  }
}
