import { z } from 'zod';
import { API_ENDPOINTS, referenceDocument } from './api';
import { endpoint, publicPaths, withKey } from './endpoint';
import { openApiDocument } from './openapi';

type Operation = {
  operationId: string;
  security: unknown[];
  parameters: Array<{ name: string; in: string; required: boolean }>;
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, { content?: Record<string, { schema: unknown }>; headers?: Record<string, unknown> }>;
};
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

const all = referenceDocument('all') as Document;
const open = referenceDocument('open') as Document;
const template = (path: string) => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');

type ValidatorModule = typeof import('@seriousme/openapi-schema-validator', { with: { 'resolution-mode': 'import' } });
/** The validator is an ES module; jest's CommonJS transform would turn a plain import() into a require(). */
const importModule = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<ValidatorModule>;

async function validate(document: unknown): Promise<{ valid: boolean; errors: unknown }> {
  const { Validator } = await importModule('@seriousme/openapi-schema-validator');
  const validator = new Validator();
  const result = await validator.validate(document as object);
  return { valid: result.valid, errors: result.errors };
}

describe('the OpenAPI document written from the endpoint declarations', () => {
  it('validates as OpenAPI 3.1, whole and for the Open API alone', async () => {
    expect(all.openapi).toBe('3.1.0');
    expect(await validate(all)).toEqual({ valid: true, errors: undefined });
    expect(await validate(open)).toEqual({ valid: true, errors: undefined });
  });

  it('describes every public path of every declared endpoint, each with its own operation id', () => {
    const described = Object.entries(all.paths).flatMap(([path, operations]) => Object.keys(operations).map((m) => `${m.toUpperCase()} ${path}`));
    const declared = API_ENDPOINTS.flatMap((e) => publicPaths(e).map((path) => `${e.method} ${template(path)}`));
    expect(described.sort()).toEqual(declared.sort());
    const ids = Object.values(all.paths).flatMap((operations) => Object.values(operations).map((o) => o.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('holds only the Open API in the Open API document', () => {
    const paths = Object.keys(open.paths);
    expect(paths).toEqual(expect.arrayContaining(['/open/v1/search', '/open/v1/search/{collection}', '/open/v1/records/{record_id}']));
    expect(paths.every((p) => p.startsWith('/open/v1/'))).toBe(true);
  });

  it('describes a whole number read from the query string as an integer with its bounds, not as digits', () => {
    const limit = all.paths['/api/v1/records']!.get!.parameters.find((p) => p.name === 'limit');
    expect(limit).toEqual({ name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } });
  });

  it('says what each endpoint takes: its security, parameters and body', () => {
    const create = all.paths['/api/v1/records']!.post!;
    expect(create.security).toEqual([{ apiKey: [] }]);
    expect(Object.keys(create.requestBody!.content)).toEqual(['application/json']);
    expect(all.paths['/api/v1/portal/keys']!.get!.security).toEqual([{ portalToken: [] }]);
    expect(all.paths['/open/v1/search']!.get!.security).toEqual([]);
    expect(all.paths['/api/v1/records/{id}']!.get!.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path', required: true })]);
    expect(Object.keys(all.paths['/api/v1/upload/{collection}/{record_type}/upload']!.post!.requestBody!.content)).toEqual(['multipart/form-data']);
    expect(all.paths['/api/v1/webhooks/upload/{collection}/{record_type}']!.post!.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'x-webhook-signature', in: 'header' })]),
    );
  });

  it('lists the answers: success with the declared schema, declared refusals, and what access and validation imply', () => {
    const responses = all.paths['/api/v1/records/{id}']!.patch!.responses;
    expect(Object.keys(responses).sort()).toEqual(['200', '400', '401', '402', '403', '404', '409', '413', '415', '422', '429', '503']);
    // Only a route that takes a body or names something in its path answers what reading those implies.
    expect(Object.keys(all.paths['/api/v1/collections']!.get!.responses).sort()).toEqual(['200', '401', '403', '429', '503']);
    expect(responses['200']!.content!['application/json']!.schema).toMatchObject({ type: 'object', properties: expect.objectContaining({ id: expect.anything() }) });
    expect(responses['422']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/ValidationError' });
    expect(responses['429']!.headers).toHaveProperty('Retry-After');
    expect(responses['200']!.headers).toHaveProperty('X-RateLimit-Remaining');
    expect(all.paths['/api/v1/records/{id}']!.delete!.responses['204']).not.toHaveProperty('content');
  });

  it("lists an answer of another status with its own body and headers (an upload's 202 with Preference-Applied)", async () => {
    for (const path of ['/api/v1/upload/{collection}/{record_type}/batch', '/api/v1/upload/{collection}/{record_type}/stream', '/api/v1/portal/collections/{name}/replace']) {
      const operation = all.paths[path]!.post!;
      expect(operation.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'prefer', in: 'header', required: false })]));
      const accepted = operation.responses['202']!;
      expect(accepted.headers).toEqual({ 'Preference-Applied': { description: expect.any(String), required: true, schema: { type: 'string', const: 'respond-async' } } });
      expect(accepted.content!['application/json']!.schema).toMatchObject({ properties: { upload_id: expect.anything(), status: { type: 'string', const: 'processing' } } });
    }
    expect(all.paths['/api/v1/ingest/{vertical}/{entity_type}/batch']!.post!.responses['202']!.content!['application/json']!.schema).toMatchObject({
      properties: { ingestion_id: expect.anything() },
    });

    // A header without a schema is a string; one that is not required says nothing of it.
    const e = endpoint({
      service: 'records',
      method: 'POST',
      path: '/x',
      summary: 'x',
      exposed: withKey('records'),
      answer: z.object({ a: z.string() }),
      otherAnswers: { 202: { description: 'later', headers: { Location: { description: 'where it will be' } } } },
    });
    const document = openApiDocument({ title: 't', version: '1', description: 'd', endpoints: [e] }) as Document;
    expect(document.paths['/api/v1/x']!.post!.responses['202']).toEqual({ description: 'later', headers: { Location: { description: 'where it will be', schema: { type: 'string' } } } });
    expect(await validate(document)).toEqual({ valid: true, errors: undefined });
  });

  it('writes the tag descriptions and the further component schemas it is given, as a request sends them', async () => {
    const e = endpoint({ service: 'records', method: 'GET', path: '/x', summary: 'x', exposed: withKey('records'), answer: z.object({ a: z.string() }) });
    const document = openApiDocument({
      title: 't',
      version: '1',
      description: 'd',
      endpoints: [e],
      tagDescriptions: { records: 'Records, *in markdown*.', search: 'not a tag of these endpoints' },
      schemas: { Extra: z.strictObject({ limit: z.int().min(1).max(50).default(10) }) },
    }) as Document & { tags: unknown[]; components: { schemas: Record<string, unknown> } };
    expect(document.tags).toEqual([{ name: 'records', description: 'Records, *in markdown*.' }]);
    expect(document.components.schemas.Extra).toEqual({
      type: 'object',
      properties: { limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 } },
      additionalProperties: false,
    });
    expect(await validate(document)).toEqual({ valid: true, errors: undefined });
  });

  it('would not validate with an answer that breaks OpenAPI (the check can fail)', async () => {
    const e = endpoint({ service: 'records', method: 'GET', path: '/x', summary: 'x', exposed: withKey('records'), answer: z.object({ a: z.string() }) });
    const document = openApiDocument({ title: 't', version: '1', description: 'd', endpoints: [e] }) as Document;
    expect((await validate(document)).valid).toBe(true);
    // A response object must say what it is.
    delete (document.paths['/api/v1/x']!.get!.responses['200'] as { description?: string }).description;
    expect((await validate(document)).valid).toBe(false);
  });
});
