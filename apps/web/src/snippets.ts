/**
 * The API requests the UI's screens stand for, written out for a person to copy: curl and @trove/client, holding the
 * person's own values (their gateway's address, collection, query). The key is left as $TROVE_API_KEY: the UI never
 * holds one after showing it once.
 */
export interface SearchRequestBody {
  query?: string;
  filters?: Record<string, string | number | boolean>;
  sort?: string;
  limit?: number;
  highlight?: boolean;
  facets?: string[];
  explain?: boolean;
}

/** Single quotes for a POSIX shell: everything literal, a quote itself closed, escaped and reopened. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The body as the API takes it: only what was given. */
export function searchBody(body: SearchRequestBody): SearchRequestBody {
  const out: SearchRequestBody = {};
  if (body.query?.trim()) out.query = body.query.trim();
  if (body.filters && Object.keys(body.filters).length > 0) out.filters = body.filters;
  if (body.sort) out.sort = body.sort;
  if (body.limit !== undefined) out.limit = body.limit;
  if (body.highlight) out.highlight = true;
  if (body.facets && body.facets.length > 0) out.facets = body.facets;
  if (body.explain) out.explain = true;
  return out;
}

export function searchCurl(baseUrl: string, collection: string, body: SearchRequestBody): string {
  return [
    `curl -X POST ${shellQuote(`${baseUrl}/api/v1/search/${encodeURIComponent(collection)}`)} \\`,
    `  -H "Authorization: Bearer $TROVE_API_KEY" \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d ${shellQuote(JSON.stringify(searchBody(body)))}`,
  ].join('\n');
}

export function searchClient(baseUrl: string, collection: string, body: SearchRequestBody): string {
  return [
    `import { TroveClient } from '@trove/client';`,
    ``,
    `const trove = new TroveClient({ baseUrl: ${JSON.stringify(baseUrl)}, apiKey: process.env.TROVE_API_KEY });`,
    `const answer = await trove.search(${JSON.stringify(collection)}, ${JSON.stringify(searchBody(body))});`,
  ].join('\n');
}

/** The Open API's search: no key, every tenant's public records (one collection's when named). */
export function openSearchCurl(baseUrl: string, body: SearchRequestBody & { collection?: string }): string {
  return [
    `curl -X POST ${shellQuote(`${baseUrl}/open/v1/search`)} \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d ${shellQuote(JSON.stringify({ ...searchBody(body), ...(body.collection ? { collection: body.collection } : {}) }))}`,
  ].join('\n');
}

export function openSearchClient(baseUrl: string, body: SearchRequestBody & { collection?: string }): string {
  const request = { ...searchBody(body), ...(body.collection ? { collection: body.collection } : {}) };
  return [
    `import { TroveClient } from '@trove/client';`,
    ``,
    `const trove = new TroveClient({ baseUrl: ${JSON.stringify(baseUrl)} });`,
    `const answer = await trove.call('POST', '/open/v1/search', { body: ${JSON.stringify(request)} });`,
  ].join('\n');
}

export function uploadCurl(baseUrl: string, collection: string, recordType: string, filename: string): string {
  return [
    `curl -X POST ${shellQuote(`${baseUrl}/api/v1/upload/${encodeURIComponent(collection)}/${encodeURIComponent(recordType)}/upload`)} \\`,
    `  -H "Authorization: Bearer $TROVE_API_KEY" \\`,
    `  -F ${shellQuote(`file=@${filename}`)}`,
  ].join('\n');
}

export function uploadClient(baseUrl: string, collection: string, recordType: string, filename: string): string {
  return [
    `import { openAsBlob } from 'node:fs';`,
    `import { TroveClient } from '@trove/client';`,
    ``,
    `const trove = new TroveClient({ baseUrl: ${JSON.stringify(baseUrl)}, apiKey: process.env.TROVE_API_KEY });`,
    `const upload = await trove.uploads.file(${JSON.stringify(collection)}, ${JSON.stringify(recordType)}, { file: await openAsBlob(${JSON.stringify(filename)}) });`,
  ].join('\n');
}
