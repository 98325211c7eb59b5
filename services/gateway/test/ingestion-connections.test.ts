import { randomBytes, randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import { startTestSystem, type TestSystem } from '@trove/testing';
import { authModule } from '@trove/auth-service';
import { ingestionModule } from '@trove/ingestion-service';
import { recordsModule } from '@trove/records-service';
import { gatewayModule } from '../src';
import { devTenant, requestOver } from './support';

// The real ingestion and records services behind a listening gateway, each client on a connection of its own, as
// the tenants' processes would be: the report this reproduces (tenant B's batch unanswered for 30-45 s after tenant
// A's refused stream upload). upstream-failures.test.ts holds the gateway to it on its own, against a service that
// leaves a refused body unread.
let sys: TestSystem;
let gatewayPort: number;
const agents: Agent[] = [];

beforeAll(async () => {
  // Auth, records and ingestion on ports of their own: the gateway calls them over HTTP, as in production.
  sys = await startTestSystem([authModule, recordsModule, ingestionModule, gatewayModule], {
    listen: ['auth', 'records', 'ingestion'],
    configOf: { gateway: { ENV: 'development' } },
  });
  gatewayPort = Number(new URL(sys.gatewayUrl!).port);
});
afterAll(async () => {
  for (const agent of agents) agent.destroy();
  await sys?.stop();
});

/** One request on a keep-alive connection of a new client; rejects when no answer arrives within 5 s. */
function send(method: string, path: string, headers: Record<string, string>, body?: Buffer | string): Promise<{ status: number; body: unknown }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  agents.push(agent);
  return requestOver(agent, gatewayPort, { method, path, headers, body });
}

it("answers tenant B's batch, and stores it, right after tenant A's stream upload of random bytes was refused", async () => {
  for (let round = 0; round < 3; round++) {
    const a = devTenant(randomUUID());
    const refused = await send('POST', '/api/v1/upload/a/t/stream', { ...a, 'content-type': 'application/x-ndjson' }, randomBytes(200 * 1024));
    expect(refused.status).toBeGreaterThanOrEqual(400);

    const b = devTenant(randomUUID());
    const stored = await send('POST', '/api/v1/upload/b/t/batch', { ...b, 'content-type': 'application/json' }, JSON.stringify({ records: [{ name: `Bolt ${round}` }] }));
    expect(stored.status).toBe(201);
    const list = await send('GET', '/api/v1/records?collection=b', b);
    expect((list.body as { items: Array<{ name: string }> }).items.map((r) => r.name)).toEqual([`Bolt ${round}`]);
  }
});
