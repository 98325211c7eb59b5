import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { endpoint } from '@trove/contracts';
import { z } from 'zod';
import { ServiceClient } from './client';
import { ERRORS, HttpError } from './errors';
import { createServiceApp } from './http';
import { createLogger } from './logger';
import { serve } from './serve';
import type { Identity } from './identity';

const SECRET = 'internal-secret-of-at-least-32-characters!';
const user: Identity = { tenantId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', principal: 'key:abc', scopes: ['records'] };

const RENAME = endpoint({
  method: 'POST',
  path: '/internal/things/:id/rename',
  summary: 'Renames a thing',
  params: z.object({ id: z.string().regex(/^t\d+$/) }),
  query: z.object({ dry_run: z.enum(['true', 'false']).default('false') }),
  body: z.strictObject({ name: z.string().min(1) }),
  status: 201,
  answer: z.object({ id: z.string(), name: z.string(), dry_run: z.boolean(), tenant_id: z.string() }),
  refusals: [404, 409, 422],
});

/** The same path declared with an answer the service does not give: what a caller sees when an upstream drifts. */
const DRIFTED = { ...RENAME, answer: z.object({ id: z.number() }) };
/** The same path declared without the 409 the service answers. */
const UNLISTED = { ...RENAME, refusals: [404] };

let server: Server;
let client: ServiceClient;

beforeAll(async () => {
  const app = createServiceApp({
    name: 'things',
    logger: createLogger({ level: 'silent' }),
    internalTokenSecret: SECRET,
    routes: (router) =>
      serve(router, RENAME, async ({ params, query, body }, req) => {
        if (params.id === 't404') throw ERRORS.notFound(`No thing ${params.id}`);
        if (params.id === 't409') throw ERRORS.conflict('The thing is being renamed already');
        return { id: params.id, name: body.name, dry_run: query.dry_run === 'true', tenant_id: req.identity!.tenantId };
      }),
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = new ServiceClient({ service: 'things', caller: 'records', target: url, internalTokenSecret: SECRET, timeoutMs: 2_000 });
});
afterAll(async () => {
  client.shutdown();
  await new Promise((resolve) => server.close(resolve));
});

async function refusalOf(work: Promise<unknown>): Promise<{ status: number; detail: unknown }> {
  try {
    await work;
  } catch (err) {
    if (err instanceof HttpError) return { status: err.status, detail: err.detail };
    throw err;
  }
  throw new Error('the call was not refused');
}

describe('a declared endpoint, served and called', () => {
  it('parses the request, answers with the declared status, and the caller gets the parsed answer', async () => {
    const answer = await client.call(RENAME, { identity: user, params: { id: 't1' }, query: { dry_run: 'true' }, body: { name: 'bolt' } });
    expect(answer).toEqual({ id: 't1', name: 'bolt', dry_run: true, tenant_id: user.tenantId });
  });

  it('answers 422 naming the part and field for a request its schemas refuse, and the caller passes it on', async () => {
    const refused = await refusalOf(client.call(RENAME, { identity: user, params: { id: 'x1' }, query: { dry_run: 'false' }, body: { name: '' } }));
    expect(refused.status).toBe(422);
    const locs = (refused.detail as Array<{ loc: string[] }>).map((i) => i.loc.join('.'));
    expect(locs).toEqual(['path.id']);
    const body = await refusalOf(client.call(RENAME, { identity: user, params: { id: 't1' }, query: { dry_run: 'false' }, body: { name: '' } }));
    expect((body.detail as Array<{ loc: string[] }>).map((i) => i.loc.join('.'))).toEqual(['body.name']);
  });

  it('passes on a declared refusal with its status and detail', async () => {
    expect(await refusalOf(client.call(RENAME, { identity: user, params: { id: 't404' }, query: {}, body: { name: 'x' } }))).toEqual({
      status: 404,
      detail: 'No thing t404',
    });
    expect((await refusalOf(client.call(RENAME, { identity: user, params: { id: 't409' }, query: {}, body: { name: 'x' } }))).status).toBe(409);
  });

  it('answers 503 for a refusal the declaration does not list, and for an answer it does not describe', async () => {
    expect((await refusalOf(client.call(UNLISTED, { identity: user, params: { id: 't409' }, query: {}, body: { name: 'x' } }))).status).toBe(503);
    const drifted = await refusalOf(client.call(DRIFTED, { identity: user, params: { id: 't1' }, query: {}, body: { name: 'x' } }));
    expect(drifted.status).toBe(503);
    expect(drifted.detail).toMatch(/does not declare/);
  });

  it('encodes path parameters as one segment each', async () => {
    // A parameter that would climb out of its segment reaches the handler as it is, and its schema refuses it.
    expect((await refusalOf(client.call(RENAME, { identity: user, params: { id: '../t1' }, query: {}, body: { name: 'x' } }))).status).toBe(422);
  });
});
