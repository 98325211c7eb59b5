import { randomUUID } from 'node:crypto';
import { bearer, useTrove } from './support/system';

jest.setTimeout(90_000);

// The payment provider is never called here: the address only keeps a stray call from leaving the machine.
const trove = useTrove({
  env: { DEPLOYMENT_MODE: 'cloud', STRIPE_SECRET_KEY: 'sk_test_e2e', STRIPE_WEBHOOK_SECRET: 'whsec_e2e', STRIPE_API_URL: 'http://127.0.0.1:9' },
});
const api = trove.api;

/** A new tenant's admin key; in cloud mode a new tenant starts on the free plan. */
const freeTenantKey = () => trove.keyFor(randomUUID(), ['admin']);

const bolt = (name: string, collection = 'fasteners') => ({ name, collection, record_type: 'product', collection_data: { size: 'M8' } });

describe('plan quotas through the gateway (cloud mode)', () => {
  it('answers a free tenant’s 51st record with 402 while another tenant at the same moment is unaffected', async () => {
    const full = await freeTenantKey();
    const other = await freeTenantKey();
    // One upload of 50 records, well inside the free plan's 60 calls a minute.
    const records = Array.from({ length: 50 }, (_, i) => ({ name: `Bolt ${i}`, source_id: `B-${i}` }));
    const upload = await api('POST', '/api/v1/upload/fasteners/product/batch', { headers: bearer(full), body: { records } });
    expect(upload.status).toBe(201);
    expect(upload.body.summary).toMatchObject({ accepted: 50, rejected: 0 });

    const [refused, created] = await Promise.all([
      api('POST', '/api/v1/records', { headers: bearer(full), body: bolt('Bolt 50') }),
      api('POST', '/api/v1/records', { headers: bearer(other), body: bolt('Nut') }),
    ]);
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({ detail: 'Record limit reached: the free plan allows 50 active records.' });
    expect(created.status).toBe(201);

    const listed = await api('GET', '/api/v1/records?limit=100', { headers: bearer(full) });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toHaveLength(50);

    // An upload past the limit writes nothing more and says so.
    const more = await api('POST', '/api/v1/upload/fasteners/product/batch', { headers: bearer(full), body: { records: [{ name: 'Bolt 51' }] } });
    expect(more.status).toBe(201);
    expect(more.body.summary).toMatchObject({ accepted: 0, rejected: 1 });
    expect(more.body.errors[0].error).toBe('Record limit reached: the free plan allows 50 active records.');
  });

  it('answers a free tenant’s record in a second collection with 402', async () => {
    const key = await freeTenantKey();
    expect((await api('POST', '/api/v1/records', { headers: bearer(key), body: bolt('Bolt') })).status).toBe(201);
    const second = await api('POST', '/api/v1/records', { headers: bearer(key), body: bolt('Saw', 'tools') });
    expect(second.status).toBe(402);
    expect(second.body).toEqual({ detail: 'Collection limit reached: the free plan allows 1 collection.' });
  });
});
