import { appendFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { referenceDocument } from '@trove/contracts';

type Operation = { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> };
type Document = { paths: Record<string, Record<string, Operation>> };

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

/**
 * Why an answer does not conform to the API reference, or undefined when it does (or when the document holds no
 * operation for the request, as for the unknown paths tests send on purpose).
 */
export function nonConformance(method: string, url: string, status: number, contentType: string | null, body: unknown): string | undefined {
  const path = url.split('?')[0]!;
  const matches = templates.filter((t) => t.pattern.test(path) && document.paths[t.template]![method.toLowerCase()]);
  if (matches.length === 0) return undefined;
  // The most literal template wins: /api/v1/records/bulk-delete over /api/v1/records/{id}.
  const { template } = matches.sort((a, b) => b.literals - a.literals)[0]!;
  const operation = document.paths[template]![method.toLowerCase()]!;
  const response = operation.responses[String(status)];
  if (!response) return `${method} ${template} answered ${status}, which the reference does not list (${Object.keys(operation.responses).join(', ')})`;
  const media = contentType?.split(';')[0]?.trim();
  if (!response.content || !media || media !== 'application/json') return undefined;
  if (!response.content[media]) return `${method} ${template} ${status} answered ${media}, which the reference does not list`;
  const validate = ajv.getSchema(`reference#/${pointer('paths', template, method.toLowerCase(), 'responses', String(status), 'content', media, 'schema')}`);
  if (!validate || validate(body)) return undefined;
  return `${method} ${template} ${status}: ${ajv.errorsText(validate.errors)}`;
}

/** Where CONFORMANCE_REPORT is set, each non-conforming answer is written there instead of failing its test. */
export function checkConformance(method: string, url: string, status: number, contentType: string | null, body: unknown): void {
  const problem = nonConformance(method, url, status, contentType, body);
  if (!problem) return;
  if (process.env.CONFORMANCE_REPORT) appendFileSync(process.env.CONFORMANCE_REPORT, `${problem}\n`);
  else throw new Error(`The answer does not conform to the API reference: ${problem}`);
}
