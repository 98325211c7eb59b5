import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { bearer, client, createKey, startTrove } from './support/system';

jest.setTimeout(120_000);

it('keeps keys and records across a restart of the embedded system', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'trove-restart-'));
  try {
    const first = await startTrove({ dataDir });
    const api1 = client(first.baseUrl);
    const key = await createKey(api1, randomUUID(), ['admin']);
    const created = await api1('POST', '/api/v1/records', {
      headers: bearer(key),
      body: { name: 'durable', collection: 'c', record_type: 't', collection_data: { n: 1 } },
    });
    expect(created.status).toBe(201);
    await first.stop();

    const second = await startTrove({ dataDir });
    try {
      const api2 = client(second.baseUrl);
      const read = await api2('GET', `/api/v1/records/${created.body.id}`, { headers: bearer(key) });
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ name: 'durable', collection_data: { n: 1 } });
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('makes new records searchable at once after the embedded system was killed with SIGKILL and started again', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'trove-kill-'));
  const searchable = async (api: ReturnType<typeof client>, key: string, name: string, withinMs: number): Promise<string[]> => {
    const deadline = Date.now() + withinMs;
    for (;;) {
      const found = await api('POST', '/api/v1/search/crash', { headers: bearer(key), body: { query: name } });
      const ids = (found.body.results ?? []).map((r: { record_id: string }) => r.record_id);
      if (ids.length > 0 || Date.now() > deadline) return ids;
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  try {
    const first = await startTrove({ dataDir });
    const api1 = client(first.baseUrl);
    const key = await createKey(api1, randomUUID(), ['admin']);
    const before = await api1('POST', '/api/v1/records', { headers: bearer(key), body: { name: 'Anchor bolt before', collection: 'crash', record_type: 't' } });
    expect(await searchable(api1, key, 'anchor bolt before', 5_000)).toEqual([before.body.id]);
    // The consumers hold their groups' leases now; a killed process releases nothing.
    await first.kill('SIGKILL');

    const second = await startTrove({ dataDir });
    try {
      const api2 = client(second.baseUrl);
      const after = await api2('POST', '/api/v1/records', { headers: bearer(key), body: { name: 'Wedge anchor after', collection: 'crash', record_type: 't' } });
      expect(after.status).toBe(201);
      expect(await searchable(api2, key, 'wedge anchor after', 5_000)).toEqual([after.body.id]);
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('refuses to start with a bad configuration value and names the variable', async () => {
  await expect(startTrove({ env: { PORT: 'not-a-port' } })).rejects.toThrow(/PORT/);
  await expect(startTrove({ env: { ENV: 'production' } })).rejects.toThrow(/INTERNAL_TOKEN_SECRET/);
});

it('flushes buffered stream records into records when the system stops', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'trove-flush-'));
  try {
    // A flush interval far beyond the test: only the shutdown flush can store these records.
    const first = await startTrove({ dataDir, env: { STREAM_FLUSH_INTERVAL_MS: '600000' } });
    const api1 = client(first.baseUrl);
    const key = await createKey(api1, randomUUID(), ['admin']);
    const streamed = await api1('POST', '/api/v1/upload/buffered/item/stream', {
      headers: { ...bearer(key), 'content-type': 'application/x-ndjson' },
      raw: '{"name":"late one"}\n{"name":"late two"}\n',
    });
    expect(streamed.body).toMatchObject({ accepted: 2, buffer_size: 2, flushed: false });
    await first.stop();

    const second = await startTrove({ dataDir });
    try {
      const api2 = client(second.baseUrl);
      const list = await api2('GET', '/api/v1/records?collection=buffered', { headers: bearer(key) });
      expect(list.body.items.map((it: { name: string }) => it.name).sort()).toEqual(['late one', 'late two']);
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
