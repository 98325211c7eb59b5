import { createHash, createHmac } from 'node:crypto';
import type { TestService } from '@trove/testing';
import { as, newTenant, recordsOf, startSystem, type System } from '../../test/helpers';

const SECRET = 'webhook-test-secret';
let system: System;
let signed: TestService;

beforeAll(async () => {
  system = await startSystem();
  signed = await system.startIngestion({ WEBHOOK_SECRET: SECRET });
});
afterAll(() => system.stop());

const sign = (body: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

function push(svc: TestService, tenant: string, collection: string, body: string, signature?: string) {
  const req = as(svc, tenant).post(`/webhooks/upload/${collection}/event`).set('content-type', 'application/json');
  if (signature !== undefined) req.set('x-webhook-signature', signature);
  return req.send(body);
}

describe('POST /webhooks/upload/{collection}/{record_type}', () => {
  it('accepts an unsigned push when no secret is configured and stores webhook records', async () => {
    const tenant = newTenant();
    const body = JSON.stringify({ records: [{ name: 'hooked', source_id: 'h1', collection_data: { qty: 3 } }, { collection_data: {} }] });
    const res = await push(system.ingestion, tenant, 'hooks', body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'complete',
      summary: { submitted: 2, accepted: 1, rejected: 1, dedup_skipped: 0 },
      errors: [{ record_index: 1, error: 'name is required', record_data: { collection_data: {} } }],
      metadata: { file_hash: `sha256:${createHash('sha256').update(body).digest('hex')}`, reconciliation_passed: true },
    });
    expect(await recordsOf(system, tenant, 'hooks')).toEqual([
      expect.objectContaining({ name: 'hooked', source_type: 'webhook', source_id: 'h1', collection_data: { qty: 3 } }),
    ]);
  });

  it('answers 201 to a push signed over its exact bytes', async () => {
    const tenant = newTenant();
    const body = '{ "records": [ { "name": "signed" } ] }';
    const res = await push(signed, tenant, 'hooks', body, sign(body));
    expect(res.status).toBe(201);
    expect((await recordsOf(system, tenant, 'hooks')).map((r) => r.source_type)).toEqual(['webhook']);
  });

  it.each([
    ['missing', undefined],
    ['signed with another secret', sign('{"records":[{"name":"forged"}]}', 'not-the-secret')],
    ['signed over other bytes', sign('{"records":[{"name":"forged"}] }')],
    ['not of the form sha256=<hex>', 'deadbeef'],
  ])('answers 401 and stores nothing when the signature is %s', async (_what, signature) => {
    const tenant = newTenant();
    const res = await push(signed, tenant, 'hooks', '{"records":[{"name":"forged"}]}', signature);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.stringMatching(/X-Webhook-Signature/) });
    expect(await recordsOf(system, tenant, 'hooks')).toEqual([]);
  });

  it('answers 422 json_invalid for a correctly signed body that is not JSON', async () => {
    const body = '{"records": [';
    const res = await push(signed, newTenant(), 'hooks', body, sign(body));
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
  });

  it('answers 422 for more than 10,000 records', async () => {
    const body = JSON.stringify({ records: Array.from({ length: 10_001 }, (_, i) => ({ name: `r${i}` })) });
    const res = await push(signed, newTenant(), 'hooks', body, sign(body));
    expect(res.status).toBe(422);
  });
});
