import express from 'express';
import request from 'supertest';
import { currentTenant, servedOnBehalf, yieldToOthers } from './on-behalf';

/** An app whose /hold requests stay in flight until released; each request's tenant comes from its `tenant` query. */
function holdingApp() {
  const releases: Array<() => void> = [];
  const app = express();
  app.use(servedOnBehalf((req) => (typeof req.query.tenant === 'string' ? req.query.tenant : undefined)));
  app.get('/hold', async (_req, res) => {
    await new Promise<void>((resolve) => releases.push(resolve));
    res.json({ tenant: currentTenant() ?? null });
  });
  return { app, release: () => releases.shift()?.(), waiting: () => releases.length };
}

const waitFor = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
};

describe('work on behalf of a tenant', () => {
  it('knows the tenant of a request in everything the handler awaits', async () => {
    const { app, release, waiting } = holdingApp();
    const answer = request(app).get('/hold?tenant=t1').then((r) => r.body);
    // Released once the handler waits (a release before it would be lost, and the request would hang).
    while (waiting() === 0) await new Promise((r) => setTimeout(r, 5));
    release();
    await expect(answer).resolves.toEqual({ tenant: 't1' });
  });

  it('lets bulk work go at once when no other tenant is served', async () => {
    const started = performance.now();
    await yieldToOthers('bulk', 1_000);
    expect(performance.now() - started).toBeLessThan(50);
  });

  it("makes bulk work wait while another tenant's request is in flight, until it is answered", async () => {
    const { app, release } = holdingApp();
    const other = request(app).get('/hold?tenant=small').then((r) => r.status);
    let yielded = false;
    // The request is in flight once the handler waits; the bulk tenant's own requests never hold it back.
    await new Promise((r) => setTimeout(r, 50));
    const own = request(app).get('/hold?tenant=bulk').then((r) => r.status);
    await new Promise((r) => setTimeout(r, 50));
    const bulk = yieldToOthers('bulk', 5_000).then(() => (yielded = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(yielded).toBe(false);
    release(); // the small tenant's request is answered
    await waitFor(() => yielded);
    expect(yielded).toBe(true);
    await bulk;
    release();
    await expect(Promise.all([other, own])).resolves.toEqual([200, 200]);
  });

  it('waits no longer than its bound however long the other request takes', async () => {
    const { app, release } = holdingApp();
    const other = request(app).get('/hold?tenant=slow').then((r) => r.status);
    await new Promise((r) => setTimeout(r, 50));
    const started = performance.now();
    await yieldToOthers('bulk', 100);
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(95);
    expect(waited).toBeLessThan(1_000);
    release();
    await other;
  });
});
