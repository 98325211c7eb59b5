import { z } from 'zod';
import { publicPaths, type Access, type Endpoint, type OtherAnswer } from './endpoint';
import { QUERY_INTEGERS } from './query-params';

/** A JSON Schema (2020-12, as OpenAPI 3.1 takes it) or an OpenAPI object: plain JSON. */
type Json = Record<string, unknown>;

export interface OpenApiOptions {
  title: string;
  version: string;
  description: string;
  /** The endpoints to describe: each of its public paths is one path of the document. */
  endpoints: readonly Endpoint[];
  /** Markdown describing a tag (a service's name) beyond its operations. */
  tagDescriptions?: Readonly<Record<string, string>>;
  /** Component schemas besides the operations' own, by name, as a request sends them; a description refers to them. */
  schemas?: Readonly<Record<string, z.ZodType>>;
}

const ERROR_REF = { $ref: '#/components/schemas/Error' };
const VALIDATION_REF = { $ref: '#/components/schemas/ValidationError' };
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

/** The methods whose requests carry a body. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** A 503 says how long to wait when the one answering knows (a busy queue, a breaker that is open). */
const RETRY_AFTER_IF_KNOWN = { description: 'Seconds to wait before trying again, when known', schema: { type: 'integer' } };

/** Why each refusal a declaration lists is answered, in general terms; its `detail` says the particular. */
const REFUSAL_REASONS: Record<number, string> = {
  400: 'The request cannot be read (a path or body that does not decode, a signature that does not match)',
  401: 'No credential, or one that is not valid',
  402: "The plan's limit is reached (records, collections or searches this month)",
  403: 'The credential does not allow this',
  404: 'Not found for this caller',
  409: 'In conflict with the current state',
  413: 'The body is larger than allowed',
  415: 'The body is of a media type or encoding the route does not take',
  422: 'The request does not validate: each item names where (loc) and why (msg, type)',
  429: 'Too many requests: wait as long as Retry-After says',
  503: 'A service the request needs is unavailable or busy; try again shortly',
};

/**
 * The OpenAPI 3.1 document of the endpoints, written from their declarations (nothing here is written twice): each
 * public path with its operation, parameters and body from the request schemas, its answer from the answer schema,
 * the refusals it declares, the 401, 403, 422, 429 and 503 its access and request imply, and its security.
 */
export function openApiDocument(opts: OpenApiOptions): Json {
  const paths: Record<string, Record<string, Json>> = {};
  const ids = new Set<string>();
  const tags = new Set<string>();
  for (const e of opts.endpoints) {
    for (const path of publicPaths(e)) {
      const template = path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
      const operation = operationOf(e, path, ids);
      tags.add(e.service);
      (paths[template] ??= {})[e.method.toLowerCase()] = operation;
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: opts.title, version: opts.version, description: opts.description },
    servers: [{ url: '/', description: 'The gateway this document was served by' }],
    tags: [...tags].sort().map((name) => ({ name, ...(opts.tagDescriptions?.[name] !== undefined && { description: opts.tagDescriptions[name] }) })),
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An API key of the tenant: `Authorization: Bearer <key>`; its scopes decide what it may call.' },
        portalToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A portal sign-in token (POST /api/v1/portal/auth/login).' },
      },
      schemas: {
        Error: { type: 'object', required: ['detail'], properties: { detail: { type: 'string' } } },
        ValidationError: {
          type: 'object',
          required: ['detail'],
          properties: {
            detail: {
              type: 'array',
              items: {
                type: 'object',
                required: ['loc', 'msg', 'type'],
                properties: {
                  loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
                  msg: { type: 'string' },
                  type: { type: 'string' },
                  input: {},
                  ctx: { type: 'object' },
                },
              },
            },
          },
        },
        ...Object.fromEntries(Object.entries(opts.schemas ?? {}).map(([name, schema]) => [name, jsonSchema(schema, 'input')])),
      },
      headers: {
        'X-RateLimit-Limit': { description: 'Requests allowed in the current window', schema: { type: 'integer' } },
        'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
        'X-RateLimit-Reset': { description: 'When the current window ends, in epoch seconds', schema: { type: 'integer' } },
        'Retry-After': { description: 'Seconds to wait before trying again', required: true, schema: { type: 'integer' } },
      },
    },
  };
}

/** One path's operation. */
function operationOf(e: Endpoint, path: string, ids: Set<string>): Json {
  const access = e.exposed!.access;
  const limited = isRateLimited(e);
  const operation: Json = {
    operationId: operationIdOf(e.method, path, ids),
    summary: e.summary,
    tags: [e.service],
    security: securityOf(access),
    parameters: [...parametersOf(e.params, 'path'), ...parametersOf(e.query, 'query'), ...parametersOf(e.headers, 'header')],
    responses: responsesOf(e, access, limited),
  };
  if (e.body) {
    const media = e.consumes ?? ['application/json'];
    const content = (m: string) => ({ schema: jsonSchema(e.body!, 'input'), ...(m === 'application/json' && e.example !== undefined && { example: e.example }) });
    operation.requestBody = { required: true, content: Object.fromEntries(media.map((m) => [m, content(m)])) };
  }
  return operation;
}

function securityOf(access: Access): Json[] {
  if (access.kind === 'key') return [{ apiKey: [] }];
  if (access.kind === 'portal') return [{ portalToken: [] }];
  return [];
}

/** Whether a per-tenant or per-address window counts the endpoint's requests: all but the services' own health and metrics. */
function isRateLimited(e: Endpoint): boolean {
  return e.service !== 'gateway' && !/^\/(health|metrics)(\/|$)/.test(e.path);
}

function responsesOf(e: Endpoint, access: Access, limited: boolean): Json {
  const status = e.status ?? 200;
  const headers = limited ? RATE_LIMIT_HEADERS : undefined;
  const responses: Json = { [status]: successOf(e, status, headers) };
  const refusal = (code: number, schema: Json = ERROR_REF, extra: Json = {}) => {
    responses[code] = { description: REFUSAL_REASONS[code] ?? `Refused (${code})`, content: { 'application/json': { schema } }, ...extra };
  };
  for (const code of e.refusals ?? []) refusal(code);
  // A path naming something may name what the caller does not have, or not decode at all.
  if (e.params) [400, 404].forEach((code) => refusal(code));
  // Whatever a POST, PUT or PATCH sends is read, declared or not: up to a limit (JSON_BODY_LIMIT, UPLOAD_MAX_BYTES),
  // in the encodings and media types the route takes, as JSON that decodes (422 json_invalid otherwise).
  const sendsBody = BODY_METHODS.has(e.method);
  if (sendsBody) [400, 413, 415].forEach((code) => refusal(code));
  if (access.kind !== 'none') {
    refusal(401);
    if (access.kind === 'key' && access.scope) refusal(403);
  }
  if (e.params || e.query || e.body || e.headers || sendsBody) refusal(422, VALIDATION_REF);
  if (limited) refusal(429, ERROR_REF, { headers: { ...RATE_LIMIT_HEADERS, 'Retry-After': { $ref: '#/components/headers/Retry-After' } } });
  if (e.service !== 'gateway') refusal(503, ERROR_REF, { headers: { 'Retry-After': RETRY_AFTER_IF_KNOWN } });
  for (const [code, { description, answer, headers: declared }] of Object.entries(e.otherAnswers ?? {})) {
    responses[code] = {
      description,
      ...(declared && { headers: Object.fromEntries(Object.entries(declared).map(([name, header]) => [name, headerOf(header)])) }),
      ...(answer && { content: { 'application/json': { schema: jsonSchema(answer, 'output') } } }),
    };
  }
  return responses;
}

/** A declared response header as OpenAPI writes it: a string unless its schema says more. */
function headerOf(header: NonNullable<OtherAnswer['headers']>[string]): Json {
  return {
    description: header.description,
    ...(header.required && { required: true }),
    schema: header.schema ? jsonSchema(header.schema, 'output') : { type: 'string' },
  };
}

function successOf(e: Endpoint, status: number, headers: Json | undefined): Json {
  const described = { description: e.summary, ...(headers && { headers }) };
  if (status === 204) return described;
  const media = e.produces ?? ['application/json'];
  const content = Object.fromEntries(
    media.map((m) => [m, { schema: m === 'application/json' || m.endsWith('+json') ? jsonSchema(e.answer, 'output') : { type: 'string' } }]),
  );
  return { ...described, content };
}

/** The properties of an object schema as OpenAPI parameters of one place. */
function parametersOf(schema: z.ZodType | undefined, place: 'path' | 'query' | 'header'): Json[] {
  if (!schema) return [];
  const object = jsonSchema(schema, 'input');
  const properties = (object.properties ?? {}) as Record<string, Json>;
  const required = new Set((object.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: place,
      required: place === 'path' || required.has(name),
      ...(typeof description === 'string' && { description }),
      schema: rest,
    };
  });
}

/** The schema as JSON Schema 2020-12, as a request sends it (`input`) or an answer holds it (`output`). */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema: written }) => {
      const integer = QUERY_INTEGERS.get(zodSchema);
      if (!integer) return;
      for (const key of Object.keys(written)) delete (written as Json)[key];
      Object.assign(written, { type: 'integer', ...integer });
    },
  }) as Json;
  return json;
}

/**
 * An operation id from the method and the path (`POST /api/v1/records/{id}/visibility` → `postRecordsByIdVisibility`),
 * unique in the document: the /api/v1 root is left out, any other root kept (`getOpenV1Search`).
 */
function operationIdOf(method: string, path: string, ids: Set<string>): string {
  const words = path
    .replace(/^\/api\/v1(?=\/|$)/, '')
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? `By_${segment.slice(1)}` : segment))
    .flatMap((segment) => segment.split(/[^A-Za-z0-9]+/))
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1));
  let id = method.toLowerCase() + words.join('');
  for (let n = 2; ids.has(id); n++) id = `${method.toLowerCase()}${words.join('')}${n}`;
  ids.add(id);
  return id;
}
