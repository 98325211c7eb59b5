import { randomUUID } from 'node:crypto';
import { bearer, useTrove } from './support/system';

jest.setTimeout(90_000);

const ALLOWED = 'https://app.example.com';
const trove = useTrove({ env: { CORS_ORIGINS: `${ALLOWED}, https://admin.example.com` } });

/** A browser's preflight: OPTIONS with the origin, the method and the headers the page is about to send. */
async function preflight(path: string, origin: string, method: string, headers: string): Promise<Response> {
  return fetch(`${trove.baseUrl}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });
}

describe('cross-origin requests from browser pages', () => {
  it('lets a page of an allowed origin call /api/v1 with a key: preflight, then the request', async () => {
    const pre = await preflight('/api/v1/search/parts', ALLOWED, 'POST', 'authorization,content-type');
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    expect(pre.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(pre.headers.get('vary')).toContain('Origin');

    const key = await trove.keyFor(randomUUID(), ['admin']);
    const res = await fetch(`${trove.baseUrl}/api/v1/collections`, { headers: { origin: ALLOWED, ...bearer(key) } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(res.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
  });

  it('lets a page of an allowed origin upload asynchronously and read that it was', async () => {
    const pre = await preflight('/api/v1/upload/parts/part/upload', ALLOWED, 'POST', 'authorization,content-type,prefer');
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('prefer');
    const key = await trove.keyFor(randomUUID(), ['admin']);
    const form = new FormData();
    form.append('file', new Blob(['name\nHex bolt M8\n'], { type: 'text/csv' }), 'parts.csv');
    const res = await fetch(`${trove.baseUrl}/api/v1/upload/parts/part/upload`, {
      method: 'POST',
      headers: { origin: ALLOWED, prefer: 'respond-async', ...bearer(key) },
      body: form,
    });
    expect(res.status).toBe(202);
    expect(res.headers.get('preference-applied')).toBe('respond-async');
    expect(res.headers.get('access-control-expose-headers')).toContain('Preference-Applied');
  });

  it('gives a page of any other origin no CORS headers on /api/v1 and /mcp, so its browser refuses the answer', async () => {
    const pre = await preflight('/api/v1/records', 'https://elsewhere.example', 'POST', 'authorization,content-type');
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    const mcp = await preflight('/mcp/', 'https://elsewhere.example', 'POST', 'authorization,content-type');
    expect(mcp.headers.get('access-control-allow-origin')).toBeNull();
    const allowedMcp = await preflight('/mcp/', 'https://admin.example.com', 'POST', 'authorization,content-type,mcp-session-id');
    expect(allowedMcp.headers.get('access-control-allow-origin')).toBe('https://admin.example.com');
    // The key is still what decides: an allowed origin without one is refused as anyone is.
    const res = await fetch(`${trove.baseUrl}/api/v1/collections`, { headers: { origin: ALLOWED } });
    expect(res.status).toBe(401);
  });

  it('lets a page of any origin search the Open API, never with credentials', async () => {
    const pre = await preflight('/open/v1/search', 'https://anyone.example', 'POST', 'content-type');
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
    const res = await fetch(`${trove.baseUrl}/open/v1/search?q=bolt`, { headers: { origin: 'https://anyone.example' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Limit');
  });
});
