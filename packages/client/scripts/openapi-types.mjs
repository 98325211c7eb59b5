// Reads an OpenAPI document (JSON) on standard input and writes the TypeScript types openapi-typescript makes of it on
// standard output. src/schema.test.ts runs it on referenceDocument('all') to check (or rewrite) src/schema.ts; a plain
// Node process, because openapi-typescript needs ESM-only packages that jest's CommonJS runtime cannot load.
import openapiTS, { astToString } from 'openapi-typescript';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const document = JSON.parse(Buffer.concat(chunks).toString('utf8'));
process.stdout.write(astToString(await openapiTS(document, { silent: true })));
