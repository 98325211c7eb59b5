import { requireScope, tenantOf } from '@trove/platform';
import type { Router } from '../http';
import type { RecordsService } from '../records-service';

export function retryResetRoutes(router: Router, records: RecordsService): void {
  router.post('/records/retry-reset', requireScope('records'), async (req, res) => {
    res.json({ reset: await records.retryFailed(tenantOf(req)) });
  });
}
