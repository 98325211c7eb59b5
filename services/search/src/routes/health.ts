import { SEARCH_HEALTH } from '@trove/contracts';
import { serve, type Router } from '@trove/platform';
import type { HealthWindow } from '../domain/health-window';
import type { PipelineReport } from '../pipeline-worker';

/**
 * SEARCH_HEALTH: the recent window's latency percentiles, zero-result rate and fallback count, and where the older
 * pipeline stands (jobs queued and running, its breaker); no tenant data.
 */
export function searchHealthRoutes(router: Router, health: HealthWindow, pipeline: { report(): Promise<PipelineReport> }): void {
  serve(router, SEARCH_HEALTH, async () => ({ status: 'ok' as const, ...health.report(), pipeline: await pipeline.report() }));
}
