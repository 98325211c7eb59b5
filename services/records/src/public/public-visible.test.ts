import { randomUUID } from 'node:crypto';
import { PUBLIC_VISIBLE } from '@trove/contracts';
import { bolt, newTenant, startRecords, type Client, type Harness } from '../../test/helpers';

let h: Harness;
let a: Client;
let b: Client;
let aTenant: string;
let bTenant: string;

beforeAll(async () => {
  h = await startRecords();
  aTenant = newTenant();
  bTenant = newTenant();
  a = h.as(aTenant);
  b = h.as(bTenant);
});
afterAll(() => h.stop());

async function create(api: Client, overrides: Record<string, unknown>): Promise<string> {
  const res = await api.post('/records', bolt(overrides));
  expect(res.status).toBe(201);
  return (res.body as { id: string }).id;
}

/** The Open API's check of search hits: which ids anyone may see right now, each with its tenant. */
describe(`POST ${PUBLIC_VISIBLE.path}`, () => {
  it("answers the public, active ids of every tenant in the order asked, once each, and nothing private, archived or unknown", async () => {
    const aPublic = await create(a, { visibility: 'public' });
    const bPublic = await create(b, { visibility: 'public', collection: 'other' });
    const aPrivate = await create(a, { visibility: 'private' });
    const archived = await create(a, { visibility: 'public' });
    expect((await a.delete(`/records/${archived}`)).status).toBe(204);
    const madePrivate = await create(b, { visibility: 'public' });
    expect((await b.patch(`/records/${madePrivate}`, { visibility: 'private' })).status).toBe(200);

    const res = await a.post(PUBLIC_VISIBLE.path, { ids: [bPublic, aPrivate, archived, randomUUID(), aPublic, madePrivate, bPublic] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      visible: [
        { id: bPublic, tenant_id: bTenant },
        { id: aPublic, tenant_id: aTenant },
      ],
    });
  });

  it('answers an empty list for no ids, and 422 for an id that is not a UUID or more than 100 ids', async () => {
    expect((await a.post(PUBLIC_VISIBLE.path, { ids: [] })).body).toEqual({ visible: [] });
    expect((await a.post(PUBLIC_VISIBLE.path, { ids: ['not-a-uuid'] })).status).toBe(422);
    expect((await a.post(PUBLIC_VISIBLE.path, { ids: Array.from({ length: 101 }, () => randomUUID()) })).status).toBe(422);
  });
});
