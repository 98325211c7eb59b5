import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { createContext, runInContext } from 'node:vm';
import { build, stop, type Metafile } from 'esbuild';
import { json, useServers } from './__tests__/server.js';

const serve = useServers();

afterAll(() => stop());

const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** The package as a browser bundler sees it: browser platform, `browser` and `import` conditions, nothing external. */
async function bundle(format: 'esm' | 'iife') {
  return build({
    entryPoints: [join(__dirname, 'index.ts')],
    bundle: true,
    platform: 'browser',
    format,
    globalName: format === 'iife' ? 'Trove' : undefined,
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
}

/** Every module the bundle took in, and every import it left to the runtime. */
function modulesOf(metafile: Metafile): string[] {
  return Object.values(metafile.inputs).flatMap((input) => input.imports.map((i) => i.path));
}

describe('in a browser', () => {
  it('bundles with no Node builtin in it', async () => {
    // A Node builtin fails the browser build itself ("Could not resolve"); the metafile shows none slipped in another way.
    const result = await bundle('esm');
    expect(result.errors).toEqual([]);
    expect(modulesOf(result.metafile).filter((path) => NODE_BUILTINS.has(path))).toEqual([]);
    expect(Object.keys(result.metafile.inputs).some((path) => path.includes('openapi-fetch'))).toBe(true);
    expect(Object.keys(result.metafile.inputs).some((path) => path.includes('@trove/contracts') || path.includes('packages/contracts'))).toBe(false);
  });

  it('runs where only web APIs exist: no process, require or Buffer', async () => {
    const s = await serve((req, res) => {
      if (req.url.startsWith('/api/v1/search/')) return json(res, 200, { results: [{ record_id: 'r1', name: 'Hex bolt' }], pagination: { offset: 0, limit: 20, has_more: false }, metadata: {} });
      if (req.url.endsWith('/stream')) return json(res, 200, { accepted: req.body.toString().split('\n').filter(Boolean).length, parse_errors: 0, buffer_size: 2, flushed: false });
      if (req.url.endsWith('/upload')) return json(res, 201, { upload_id: 'u', status: 'complete', size: req.body.byteLength });
      json(res, 404, { detail: 'Not found' }, { 'X-Request-Id': 'req-9' });
    });
    const { outputFiles } = await bundle('iife');
    const web = {
      fetch, Request, Response, Headers, FormData, Blob, ReadableStream, TextEncoder, TextDecoder, URL, URLSearchParams,
      AbortController, AbortSignal, DOMException, setTimeout, clearTimeout, crypto, console,
    };
    const page = createContext({ ...web });
    runInContext(outputFiles[0]!.text, page);
    expect(runInContext('typeof process + typeof require + typeof Buffer', page)).toBe('undefinedundefinedundefined');
    const { TroveClient, TroveError } = page.Trove as typeof import('./index.js');

    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'k' });
    const found = await trove.search('parts', { query: 'hex bolt' });
    expect(found.results.map((r) => r.name)).toEqual(['Hex bolt']);
    // No stream bodies here: the records are gathered, then sent as one body.
    async function* records() {
      yield { name: 'a' };
      yield { name: 'b' };
    }
    await expect(trove.uploads.stream('parts', 'product', records())).resolves.toMatchObject({ requests: 1, accepted: 2 });
    await expect(trove.uploads.file('parts', 'product', { file: 'name\nA\n', filename: 'a.csv' })).resolves.toMatchObject({ upload_id: 'u' });
    const error = await trove.records.get('0b7b1c1e-4a4e-4f3a-9d1c-2f5e8a6b7c9d').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TroveError);
    expect(error).toMatchObject({ status: 404, requestId: 'req-9' });
    expect(s.received.map((r) => [r.method, r.url, r.headers.authorization])).toEqual([
      ['POST', '/api/v1/search/parts', 'Bearer k'],
      ['POST', '/api/v1/upload/parts/product/stream', 'Bearer k'],
      ['POST', '/api/v1/upload/parts/product/upload', 'Bearer k'],
      ['GET', '/api/v1/records/0b7b1c1e-4a4e-4f3a-9d1c-2f5e8a6b7c9d', 'Bearer k'],
    ]);
    expect(s.received[2]!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
  });
});
