import { appendFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { referenceDocument } from '@trove/contracts';

type Schema = Record<string, unknown>;
type HeaderObject = { required?: boolean; schema?: Schema; $ref?: string };
type Response = { content?: Record<string, { schema?: unknown }>; headers?: Record<string, HeaderObject> };
type Operation = { responses: Record<string, Response> };
type Document = { paths: Record<string, Record<string, Operation>>; components: { headers: Record<string, HeaderObject> } };

const document = referenceDocument('all') as Document;
const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv);
ajv.addSchema(document, 'reference');

/** The document's path templates, each as a pattern over a request path. */
const templates = Object.keys(document.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
  literals: template.split('/').filter((s) => !s.startsWith('{')).length,
}));

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** One answer as a client received it. */
export interface Answer {
  method: string;
  /** The request's path and query (`/api/v1/records/abc?x=1`). */
  url: string;
  status: number;
  headers: Headers;
  /** The parsed JSON body of a JSON answer; not read for any other media type. */
  body?: unknown;
}

/**
 * Why an answer does not conform to the API reference, or undefined when it does (or when the document holds no
 * operation for the request, as for the unknown paths tests send on purpose): its status must be one the operation
 * lists, its media type one that status lists, a JSON body must validate against the schema, and every header the
 * response declares must be present when required and hold a value of its schema when present.
 */
export function nonConformance({ method, url, status, headers, body }: Answer): string | undefined {
  const path = url.split('?')[0]!;
  const verb = method.toLowerCase();
  const matches = templates.filter((t) => t.pattern.test(path) && document.paths[t.template]![verb]);
  if (matches.length === 0) return undefined;
  // The most literal template wins: /api/v1/records/bulk-delete over /api/v1/records/{id}.
  const { template } = matches.sort((a, b) => b.literals - a.literals)[0]!;
  const at = `${method} ${template} ${status}`;
  const operation = document.paths[template]![verb]!;
  const response = operation.responses[String(status)];
  if (!response) return `${method} ${template} answered ${status}, which the reference does not list (${Object.keys(operation.responses).join(', ')})`;

  for (const [name, declared] of Object.entries(response.headers ?? {})) {
    const header = declared.$ref ? document.components.headers[declared.$ref.split('/').pop()!]! : declared;
    const value = headers.get(name);
    if (value === null) {
      if (header.required) return `${at}: the header ${name} is missing`;
    } else if (header.schema?.type === 'integer' && !/^-?\d+$/.test(value)) {
      return `${at}: the header ${name} is ${JSON.stringify(value)}, not an integer`;
    }
  }

  const media = headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (!response.content) return undefined;
  if (!media) return `${at} answered without a Content-Type (the reference lists ${Object.keys(response.content).join(', ')})`;
  if (!response.content[media]) return `${at} answered ${media}, which the reference does not list (${Object.keys(response.content).join(', ')})`;
  if (media !== 'application/json') return undefined;
  const validate = ajv.getSchema(`reference#/${pointer('paths', template, verb, 'responses', String(status), 'content', media, 'schema')}`);
  if (!validate || validate(body)) return undefined;
  return `${at}: ${ajv.errorsText(validate.errors)}`;
}

/** Where CONFORMANCE_REPORT is set, each non-conforming answer is written there instead of failing its test. */
export function checkConformance(answer: Answer): void {
  const problem = nonConformance(answer);
  if (!problem) return;
  if (process.env.CONFORMANCE_REPORT) appendFileSync(process.env.CONFORMANCE_REPORT, `${problem}\n`);
  else throw new Error(`The answer does not conform to the API reference: ${problem}`);
}

/** The origins of the gateways the tests started: every answer fetched from one is checked. */
const gateways = new Set<string>();

/** From now on, every answer `fetch` receives from the gateway at `baseUrl` is checked against the API reference. */
export function checkAnswersOf(baseUrl: string): void {
  gateways.add(new URL(baseUrl).origin);
}

const fetchUnchecked = globalThis.fetch;

/**
 * `fetch`, checking each answer of a started gateway against the reference before the caller sees it: the tests' own
 * client, the MCP SDK's transport, @trove/client and a test's direct calls alike. A JSON body is read from a copy of
 * the answer, so the caller still reads (or streams) the original; other bodies are not read.
 */
async function checkedFetch(input: string | URL | Request, init?: RequestInit): Promise<globalThis.Response> {
  const res = await fetchUnchecked(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!gateways.has(url.origin)) return res;
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  let body: unknown;
  if (res.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() === 'application/json') {
    const text = await res.clone().text();
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
  }
  checkConformance({ method: method.toUpperCase(), url: url.pathname + url.search, status: res.status, headers: res.headers, body });
  return res;
}

globalThis.fetch = checkedFetch as typeof fetch;
