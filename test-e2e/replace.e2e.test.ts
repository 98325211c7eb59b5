import { randomUUID } from 'node:crypto';
import { bearer, useTrove } from './support/system';
import { portalAuth, signUp } from './support/portal';

/**
 * Blue-green replace through the gateway with a portal token: a live collection is replaced while private search,
 * the Open API and MCP are asked over and over, before, during and after the swap; no answer may hold records of
 * both generations.
 */
jest.setTimeout(180_000);

const trove = useTrove();
const api = trove.api;
let portal: Record<string, string>;
let key: Record<string, string>;

beforeAll(async () => {
  const { token } = await signUp(api);
  portal = portalAuth(token);
  const created = await api('POST', '/api/v1/portal/keys', { headers: portal, body: { name: 'replace-e2e', scopes: ['admin'] } });
  expect(created.status).toBe(201);
  key = bearer(created.body.key);
});

async function eventually(check: () => Promise<void>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** A live collection of public records named `Old widget <i>`, searchable everywhere. */
async function liveCollection(collection: string, n: number): Promise<void> {
  const visibility = await api('PATCH', `/api/v1/collections/${collection}/default-visibility`, { headers: key, body: { default_visibility: 'public' } });
  expect(visibility.status).toBe(200);
  const records = Array.from({ length: n }, (_, i) => ({ name: `Old widget ${i}`, source_id: `w-${i}`, collection_data: { size: i } }));
  const upload = await api('POST', `/api/v1/upload/${collection}/widget/batch`, { headers: key, body: { records } });
  expect(upload.status).toBe(201);
  await eventually(async () => expect(await privateNames(collection)).toHaveLength(n));
  // Search has them; records marks them indexed when search's acknowledgement arrives, a moment later.
  await eventually(async () => {
    const list = await api('GET', `/api/v1/records?collection=${collection}&limit=100`, { headers: key });
    expect(list.body.items.map((r: { indexing_status: string }) => r.indexing_status)).toEqual(Array(n).fill('indexed'));
  });
}

function replace(collection: string, names: string[], recordType = 'widget') {
  const form = new FormData();
  const csv = `name,source_id,size\n${names.map((n, i) => `${n},w-${i},${i}`).join('\n')}\n`;
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'widgets.csv');
  return fetch(`${trove.baseUrl}/api/v1/portal/collections/${collection}/replace?record_type=${recordType}`, { method: 'POST', headers: portal, body: form }).then(
    async (res) => ({ status: res.status, body: (await res.json()) as any }),
  );
}

const status = async (collection: string) => (await api('GET', `/api/v1/portal/collections/${collection}/replace-status`, { headers: portal })).body;

async function privateNames(collection: string): Promise<string[]> {
  const res = await api('POST', `/api/v1/search/${collection}`, { headers: key, body: { query: 'widget', limit: 100 } });
  expect(res.status).toBe(200);
  return res.body.results.map((r: { name: string }) => r.name);
}

async function openNames(collection: string): Promise<string[]> {
  const res = await api('GET', `/open/v1/search?q=widget&collection=${collection}&limit=50`);
  expect(res.status).toBe(200);
  return res.body.results.map((r: { name: string }) => r.name);
}

async function mcpNames(collection: string): Promise<string[]> {
  const res = await fetch(`${trove.baseUrl}/mcp/`, {
    method: 'POST',
    headers: { ...key, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'trove_search', arguments: { collection, query: 'widget', limit: 50 } } }),
  });
  const data = /^data: (.*)$/m.exec(await res.text())?.[1];
  const text: string = JSON.parse(data!).result.content[0].text;
  return text.match(/(Old|New) widget \d+/g) ?? [];
}

/** The generations an answer shows: 'Old', 'New', or both. */
const generationsOf = (names: string[]) => [...new Set(names.map((n) => n.split(' ')[0]))].sort();

describe('blue-green replace through the gateway', () => {
  it('never shows a mix of generations to private search, the Open API or MCP, before, during or after the swap', async () => {
    const collection = `bg-${randomUUID().slice(0, 8)}`;
    await liveCollection(collection, 20);
    await eventually(async () => expect(await openNames(collection)).toHaveLength(20));
    const oldIds = (await api('GET', `/api/v1/records?collection=${collection}&limit=100`, { headers: key })).body.items.map((r: { id: string }) => r.id);

    const staged = await replace(
      collection,
      Array.from({ length: 15 }, (_, i) => `New widget ${i}`),
    );
    expect(staged.status).toBe(200);
    expect(staged.body).toMatchObject({ status: 'complete', summary: { accepted: 15 }, staging: { generation: 2, status: 'staging', collection } });
    await eventually(async () => expect(await status(collection)).toMatchObject({ has_pending_replace: true, phase: 'ready', total: 15, indexed: 15, ready_to_swap: true }));

    // Staged and fully indexed, yet invisible: every search still answers the live generation only.
    expect(generationsOf(await privateNames(collection))).toEqual(['Old']);
    expect(generationsOf(await openNames(collection))).toEqual(['Old']);
    expect(generationsOf(await mcpNames(collection))).toEqual(['Old']);

    // Searches run without pause across the swap; the Open API allows 60 searches a minute per address.
    const seen: Array<{ via: string; generations: string[] }> = [];
    let stop = false;
    const loop = async (via: string, search: (c: string) => Promise<string[]>, pauseMs: number, max: number) => {
      for (let i = 0; i < max && !stop; i++) {
        seen.push({ via, generations: generationsOf(await search(collection)) });
        await new Promise((r) => setTimeout(r, pauseMs));
      }
    };
    const searching = Promise.all([loop('private', privateNames, 20, 400), loop('mcp', mcpNames, 40, 200), loop('open', openNames, 300, 15)]);
    await new Promise((r) => setTimeout(r, 300));
    const swap = await api('POST', `/api/v1/portal/collections/${collection}/swap`, { headers: portal });
    expect(swap.status).toBe(200);
    expect(swap.body).toEqual({ collection, old_generation: 1, new_generation: 2, old_record_count: 20, new_record_count: 15, deleted: 20 });
    await eventually(async () => {
      expect(generationsOf(await privateNames(collection))).toEqual(['New']);
      expect(generationsOf(await mcpNames(collection))).toEqual(['New']);
    });
    await new Promise((r) => setTimeout(r, 1_000));
    stop = true;
    await searching;

    const mixed = seen.filter((s) => s.generations.length > 1);
    expect(mixed).toEqual([]);
    for (const via of ['private', 'mcp', 'open']) expect(seen.filter((s) => s.via === via).length).toBeGreaterThan(1);
    // The searches did run across the switch: private search answered the old generation, then the new one.
    const privately = seen.filter((s) => s.via === 'private').map((s) => s.generations.join());
    expect(privately).toContain('Old');
    expect(privately).toContain('New');
    expect(privately.lastIndexOf('Old')).toBeLessThan(privately.indexOf('New'));

    // After the swap: the new generation everywhere, the old one gone from the database and every index.
    await eventually(async () => expect((await openNames(collection)).sort()).toEqual(Array.from({ length: 15 }, (_, i) => `New widget ${i}`).sort()));
    expect(await privateNames(collection)).toHaveLength(15);
    for (const id of oldIds.slice(0, 3)) {
      expect((await api('GET', `/api/v1/records/${id}`, { headers: key })).status).toBe(404);
      expect((await api('GET', `/open/v1/records/${id}`)).status).toBe(404);
    }
    expect((await status(collection)).has_pending_replace).toBe(false);
    expect((await api('POST', `/api/v1/portal/collections/${collection}/swap`, { headers: portal })).status).toBe(409);
  });

  it('leaves production exactly as it was when the replace is cancelled', async () => {
    const collection = `bg-${randomUUID().slice(0, 8)}`;
    await liveCollection(collection, 5);
    const snapshot = async () => {
      const list = await api('GET', `/api/v1/records?collection=${collection}&limit=100`, { headers: key });
      const records = await Promise.all(list.body.items.map(async (r: { id: string }) => (await api('GET', `/api/v1/records/${r.id}`, { headers: key })).body));
      return { records, names: (await privateNames(collection)).sort() };
    };
    const before = await snapshot();

    const staged = await replace(collection, ['New widget 0', 'New widget 1']);
    expect(staged.status).toBe(200);
    await eventually(async () => expect((await status(collection)).ready_to_swap).toBe(true));
    const cancelled = await api('POST', `/api/v1/portal/collections/${collection}/cancel-replace`, { headers: portal });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({ collection, cancelled_generation: 2, records_archived: 2 });

    expect(await snapshot()).toEqual(before);
    expect(generationsOf(await mcpNames(collection))).toEqual(['Old']);
    expect((await status(collection)).has_pending_replace).toBe(false);
    expect((await api('POST', `/api/v1/portal/collections/${collection}/cancel-replace`, { headers: portal })).status).toBe(409);
  });

  it('answers one of two concurrent replaces with 200 and the other with 409', async () => {
    const collection = `bg-${randomUUID().slice(0, 8)}`;
    await liveCollection(collection, 2);
    const answers = await Promise.all([replace(collection, ['New widget 0']), replace(collection, ['New widget 1'])]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect((await status(collection)).total).toBe(1);
  });

  it('refuses the replace routes without a portal token, and with an API key', async () => {
    const collection = `bg-${randomUUID().slice(0, 8)}`;
    expect((await api('GET', `/api/v1/portal/collections/${collection}/replace-status`)).status).toBe(401);
    expect((await api('POST', `/api/v1/portal/collections/${collection}/swap`, { headers: key })).status).toBe(401);
    expect((await api('GET', `/api/v1/portal/collections/${collection}/replace-status`, { headers: portal })).status).toBe(404);
  });
});
