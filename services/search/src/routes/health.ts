import type { HealthWindow } from '../domain/health-window';
import type { Router } from '@trove/platform';
import type { PipelineReport } from '../pipeline-worker';

/**
 * GET /health/search: the recent window's latency percentiles, zero-result rate and fallback count, and where the
 * older pipeline stands (jobs queued and running, its breaker); no tenant data.
 */
export function searchHealthRoutes(router: Router, health: HealthWindow, pipeline: { report(): Promise<PipelineReport> }): void {
  router.get('/health/search', async (_req, res) => {
    res.json({ status: 'ok', ...health.report(), pipeline: await pipeline.report() });
  });
}
