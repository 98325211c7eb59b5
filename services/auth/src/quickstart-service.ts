import { quickstartOf, type QuickstartAnswer } from './domain/quickstart';
import type { Db } from './store/schema';
import { completedSteps } from './store/quickstart';

/** The portal's quickstart, from auth's own tables: the tenant's keys and the proofs the usage.events consumer keeps. */
export class QuickstartService {
  constructor(private readonly deps: { db: Db }) {}

  async quickstart(tenantId: string): Promise<QuickstartAnswer> {
    return quickstartOf(await completedSteps(this.deps.db, tenantId));
  }
}
