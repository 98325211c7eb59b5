import { TOPICS, usageEvent, type UsageEvent } from '@trove/contracts';
import { collectEvents, eventually, type CollectedEvents } from '@trove/testing';
import { as, newTenant, startSystem, type System } from '../../test/helpers';

let system: System;
let collected: CollectedEvents<UsageEvent>;

beforeAll(async () => {
  system = await startSystem();
  collected = await collectEvents(system.ingestion.bus, TOPICS.usageEvents, (p) => usageEvent.parse(p));
});
afterAll(async () => {
  await collected.stop();
  await system.stop();
});

describe('upload usage', () => {
  it('announces each completed upload once, with its id; a refused upload announces nothing', async () => {
    const tenant = newTenant();
    const api = as(system.ingestion, tenant);
    const send = (body: string) => api.post('/upload/parts/product/batch').set('content-type', 'application/json').send(body);
    const done = await send(JSON.stringify({ records: [{ name: 'Bolt' }, { name: 'Nut' }] }));
    expect(done.status).toBe(201);
    expect((await send('{"records": [')).status).toBe(422);

    const uploads = () => collected.events.filter((e) => e.tenant_id === tenant && e.kind === 'upload');
    await eventually(async () => expect(uploads()).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 300));
    expect(uploads()).toEqual([{ kind: 'upload', tenant_id: tenant, upload_id: done.body.upload_id, at: expect.any(String) }]);
    // The records it created are announced by records, once for the write.
    expect(collected.events.filter((e) => e.tenant_id === tenant && e.kind === 'records')).toEqual([
      { kind: 'records', tenant_id: tenant, record_types: ['product'], created: 2, at: expect.any(String) },
    ]);
  });
});
