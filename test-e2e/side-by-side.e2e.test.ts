import { randomUUID } from 'node:crypto';
import { eventually } from '@trove/testing';
import { client, devTenant, listeningPorts, startTrove, type Trove } from './support/system';

/**
 * The embedded default opens one port: two systems run side by side on one machine told apart by PORT (and their
 * DATA_DIR) alone, as a user running a second copy would.
 */
jest.setTimeout(180_000);

const systems: Trove[] = [];
afterAll(async () => {
  for (const trove of systems) await trove.stop();
});

it('starts two --target=all systems with nothing set but PORT and DATA_DIR, and each answers with its own data', async () => {
  systems.push(await startTrove(), await startTrove());
  const tenant = randomUUID();
  for (const [i, trove] of systems.entries()) {
    expect(listeningPorts(trove.pid)).toEqual([Number(new URL(trove.baseUrl).port)]);
    const api = client(trove.baseUrl, devTenant(tenant));
    expect((await api('POST', '/api/v1/records', { body: { name: `Hex bolt of system ${i}`, collection: 'bolts', record_type: 'part' } })).status).toBe(201);
  }
  for (const [i, trove] of systems.entries()) {
    const api = client(trove.baseUrl, devTenant(tenant));
    await eventually(async () => {
      const found = await api('POST', '/api/v1/search/bolts', { body: { query: 'hex bolt' } });
      expect(found.status).toBe(200);
      expect(found.body.results.map((r: { name: string }) => r.name)).toEqual([`Hex bolt of system ${i}`]);
    });
  }
});
