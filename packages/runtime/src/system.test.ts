import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, createServiceApp, loadConfig, type ServiceName } from '@trove/platform';
import type { ServiceModule } from './module';
import { startSystem, type RunningSystem } from './system';

/** A module whose app is a bare service app (its own http metrics only). */
const bare = (name: ServiceName): ServiceModule => ({
  name,
  dependsOn: [],
  init: async (ctx) => ({ app: createServiceApp({ name, logger: ctx.logger, internalTokenSecret: ctx.config.INTERNAL_TOKEN_SECRET, routes: () => undefined }) }),
});

describe("a process's /metrics (METRICS_ENABLED)", () => {
  let dataDir: string;
  let system: RunningSystem | undefined;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'trove-metrics-'));
  });
  afterEach(async () => {
    await system?.stop();
    system = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (metricsEnabled: string) => {
    const config = loadConfig({ ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir, METRICS_ENABLED: metricsEnabled });
    system = await startSystem({ config, logger: createLogger({ level: 'silent' }), modules: [bare('records'), bare('search')], ports: { records: 0, search: 0 } });
    return system;
  };

  it("serves on each service's port the metrics of every service of the process and the default metrics once", async () => {
    const { ports } = await start('true');
    await fetch(`http://127.0.0.1:${ports.search}/health`);
    await fetch(`http://127.0.0.1:${ports.records}/health/ready`);

    const res = await fetch(`http://127.0.0.1:${ports.records}/metrics`);

    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/http_requests_total\{[^}]*route="\/health"[^}]*service="search"[^}]*\} 1/);
    expect(text).toMatch(/http_requests_total\{[^}]*route="\/health\/ready"[^}]*service="records"[^}]*\} 1/);
    expect(text.match(/^# TYPE http_requests_total counter$/gm)).toHaveLength(1);
    expect(text.match(/^process_start_time_seconds /gm)).toHaveLength(1);
  });

  it('answers 404 on every /metrics with METRICS_ENABLED=false', async () => {
    const { ports } = await start('false');

    for (const port of [ports.records, ports.search]) {
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    }
  });
});
