import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { bearer, client, devTenant, startTrove } from './support/system';

jest.setTimeout(120_000);

it('keeps keys and records across a restart of the embedded system', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'trove-restart-'));
  try {
    const first = await startTrove({ dataDir });
    const api1 = client(first.baseUrl);
    const key = (await api1('POST', '/api/v1/auth/keys', { headers: devTenant(randomUUID()), body: { name: 'k', scopes: ['admin'] } })).body.key;
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
    const key = (await api1('POST', '/api/v1/auth/keys', { headers: devTenant(randomUUID()), body: { name: 'k', scopes: ['admin'] } })).body.key;
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
