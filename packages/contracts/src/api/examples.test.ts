import { API_ENDPOINTS, referenceDocument } from './index';

/** Endpoints whose body is JSON: each shows an example request in the reference. */
const jsonBodied = API_ENDPOINTS.filter((e) => e.body && (e.consumes ?? ['application/json']).includes('application/json'));

describe('the request examples of the API reference', () => {
  it.each(jsonBodied.map((e) => [`${e.method} ${e.path}`, e] as const))('%s has an example its own body schema takes', (_name, e) => {
    expect(e.example).toBeDefined();
    const parsed = e.body!.safeParse(e.example);
    expect(parsed.error?.issues ?? []).toEqual([]);
  });

  it('shows each example as its JSON request body in the document', () => {
    const paths = referenceDocument('all').paths as Record<string, Record<string, { requestBody?: { content: Record<string, { example?: unknown }> } }>>;
    const search = paths['/api/v1/search/{collection}']!.post!;
    expect(search.requestBody!.content['application/json']!.example).toEqual(API_ENDPOINTS.find((e) => e.path === '/search/:collection' && e.method === 'POST')!.example);
    const shown = Object.values(paths).flatMap((ops) => Object.values(ops)).filter((op) => op.requestBody?.content['application/json']?.example !== undefined);
    expect(shown.length).toBeGreaterThanOrEqual(jsonBodied.length);
  });
});
