import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { startTestService, type TestService } from '@trove/testing';
import { recordsModule } from '../index';
import { claimExports, createExport, type ExportDb } from './store';

/**
 * Export jobs are taken up fairly between tenants (docs/behaviour/fair-shares.md): a waiting job of a tenant
 * with fewer jobs running goes first, so one tenant's many exports do not hold another's back. The service is not
 * started, so its own runner takes nothing: the test claims as a runner would.
 */

let svc: TestService;
let db: ExportDb;

beforeAll(async () => {
  svc = await startTestService(recordsModule, { start: false });
  db = svc.database.db;
});
afterAll(() => svc.stop());

async function jobsOf(tenant: string, n: number): Promise<string[]> {
  const res = await request(svc.instance.app).post('/records').set(svc.as(tenant, ['records'])).send({ name: 'Exported bolt', collection: 'fair-exports', record_type: 'bolt' });
  expect(res.status).toBe(201);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const job = await createExport(db, { id: randomUUID(), tenant_id: tenant, collection: 'fair-exports', format: 'json', record_status: 'active' });
    ids.push(job!.id);
    await new Promise((r) => setTimeout(r, 5));
  }
  return ids;
}

it("takes up another tenant's export before a second of a tenant that already has one running, oldest first among equals", async () => {
  const [a, b] = [randomUUID(), randomUUID()];
  const [a1, a2, a3] = await jobsOf(a, 3);
  const [b1] = await jobsOf(b, 1);
  const owner = randomUUID();
  const claimed: string[] = [];
  for (let i = 0; i < 4; i++) claimed.push(...(await claimExports(db, owner, 1, 60)).map((j) => j.id));
  expect(claimed).toEqual([a1, b1, a2, a3]);
});
