import { eventually } from '@trove/testing';
import { portalAuth, signUp } from './support/portal';
import { bearer, useTrove } from './support/system';

jest.setTimeout(180_000);

/**
 * Read-your-writes after a blue-green swap in the scaled shape: one PostgreSQL, Redis, every service its own process.
 * A swap answers once search serves the new generation, so the very next search (of the portal, of a key) finds the
 * new records and none of the old, whichever process answers it.
 */

const system = useTrove({ apart: true });
const api = system.api;
let portal: Record<string, string>;
let key: Record<string, string>;

beforeAll(async () => {
  const person = await signUp(api);
  portal = portalAuth(person.token);
  const created = await api('POST', '/api/v1/portal/keys', { headers: portal, body: { name: 'swap', scopes: ['admin'] } });
  key = bearer(created.body.key);
});

async function replace(collection: string, names: string[]): Promise<number> {
  const form = new FormData();
  form.append('file', new Blob([`name,source_id\n${names.map((n, i) => `${n},s-${i}`).join('\n')}\n`], { type: 'text/csv' }), 'widgets.csv');
  const res = await fetch(`${system.baseUrl}/api/v1/portal/collections/${collection}/replace?record_type=widget`, { method: 'POST', headers: portal, body: form });
  await res.arrayBuffer();
  return res.status;
}

const portalNames = async (collection: string) =>
  ((await api('POST', `/api/v1/portal/search/${collection}`, { headers: portal, body: { query: 'widget', limit: 100 } })).body.results as Array<{ name: string }>)
    .map((r) => r.name)
    .sort();

it('finds the new generation in the very next search after every swap', async () => {
  for (let round = 0; round < 3; round++) {
    const collection = `swapped-${round}`;
    const upload = await api('POST', `/api/v1/upload/${collection}/widget/batch`, { headers: key, body: { records: [{ name: 'Old widget 0' }, { name: 'Old widget 1' }] } });
    expect(upload.status).toBe(201);
    await eventually(async () => expect(await portalNames(collection)).toEqual(['Old widget 0', 'Old widget 1']));

    expect(await replace(collection, ['New widget 0', 'New widget 1', 'New widget 2'])).toBe(200);
    await eventually(async () => {
      const status = await api('GET', `/api/v1/portal/collections/${collection}/replace-status`, { headers: portal });
      expect(status.body.ready_to_swap).toBe(true);
    });
    const swap = await api('POST', `/api/v1/portal/collections/${collection}/swap`, { headers: portal });
    expect(swap.status).toBe(200);
    expect(await portalNames(collection)).toEqual(['New widget 0', 'New widget 1', 'New widget 2']);
    const byKey = await api('POST', `/api/v1/search/${collection}`, { headers: key, body: { query: 'widget' } });
    expect(byKey.body.results.map((r: { name: string }) => r.name).sort()).toEqual(['New widget 0', 'New widget 1', 'New widget 2']);
  }
});
