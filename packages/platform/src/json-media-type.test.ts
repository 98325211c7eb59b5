import { endpoint } from '@trove/contracts';
import request from 'supertest';
import { z } from 'zod';
import { createServiceApp, identityOf } from './http';
import { IDENTITY_HEADER, signIdentity } from './identity';
import { createLogger } from './logger';
import { handle, serve } from './serve';
import { parseInput } from './validation';

const SECRET = 'internal-secret-of-at-least-32-characters!';
const auth = { [IDENTITY_HEADER]: signIdentity({ tenantId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', principal: 'key:abc', scopes: ['records'] }, SECRET) };

const thing = z.strictObject({ name: z.string().min(1) });
const answer = z.object({ name: z.string() });
/** Served: parsed by serve(). */
const CREATE = endpoint({ method: 'POST', path: '/things', summary: 'Creates a thing', body: thing, status: 201, answer });
/** Handled: the handler parses the body itself. */
const RENAME = endpoint({ method: 'PATCH', path: '/things/:id', summary: 'Renames a thing', params: z.object({ id: z.string() }), body: thing, answer });
/** A route that reads another media type, declared. */
const UPLOAD = endpoint({ method: 'POST', path: '/things/upload', summary: 'Uploads things', consumes: ['multipart/form-data'], body: z.object({}), answer: z.object({ bytes: z.number() }) });

const app = createServiceApp({
  name: 'records',
  logger: createLogger({ level: 'silent' }),
  internalTokenSecret: SECRET,
  routes: (router) => {
    handle(router, UPLOAD, (req, res) => {
      let bytes = 0;
      req.on('data', (chunk: Buffer) => (bytes += chunk.length));
      req.on('end', () => res.json({ bytes }));
    });
    serve(router, CREATE, async ({ body }) => body);
    handle(router, RENAME, (req, res) => {
      identityOf(req);
      res.json(parseInput(RENAME.body, req.body, 'body'));
    });
  },
});

describe('a JSON route sent a body of another media type', () => {
  it.each([
    ['text/plain', 'was sent as text/plain'],
    ['text/plain; charset=utf-8', 'was sent as text/plain'],
    ['application/x-www-form-urlencoded', "was sent as application/x-www-form-urlencoded (what curl -d sends unless given -H 'Content-Type: application/json')"],
  ])('answers 415 saying to send Content-Type: application/json (%s)', async (type, says) => {
    const res = await request(app).post('/things').set(auth).set('content-type', type).send('{"name":"bolt"}');

    expect(res.status).toBe(415);
    expect(res.body.detail).toBe(`This route reads a JSON body, and this one ${says}; send it with Content-Type: application/json`);
  });

  it('answers the same for a body without any Content-Type, on a route whose handler reads the body itself', async () => {
    const res = await request(app).patch('/things/t1').set(auth).send(Buffer.from('{"name":"bolt"}'));

    expect(res.status).toBe(415);
    expect(res.body.detail).toBe('This route reads a JSON body, and this one was sent without a Content-Type; send it with Content-Type: application/json');
  });

  it('reads the same body sent as JSON, and takes a request without a body as one without a body (422 naming the fields)', async () => {
    expect((await request(app).post('/things').set(auth).set('content-type', 'application/json').send('{"name":"bolt"}')).status).toBe(201);
    expect((await request(app).post('/things').set(auth).set('content-type', 'application/merge-patch+json').send('{"name":"bolt"}')).status).toBe(201);
    const empty = await request(app).post('/things').set(auth).set('content-type', 'text/plain').set('content-length', '0');
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0].loc).toEqual(['body', 'name']);
  });

  it('leaves a route that declares another media type to read its body', async () => {
    const res = await request(app).post('/things/upload').set(auth).set('content-type', 'multipart/form-data; boundary=x').send('--x--');

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ bytes: 5 });
  });

  it('checks the identity first: no identity is 401 whatever the body', async () => {
    expect((await request(app).post('/things').set('content-type', 'text/plain').send('x')).status).toBe(401);
  });
});
