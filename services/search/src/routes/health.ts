import type { HealthWindow } from '../domain/health-window';
import type { Router } from '../http';

/** GET /health/search: the recent window's latency percentiles, zero-result rate and fallback count (no tenant data). */
export function searchHealthRoutes(router: Router, health: HealthWindow): void {
  router.get('/health/search', (_req, res) => {
    res.json({ status: 'ok', ...health.report() });
  });
}
