import { matchRoute, upstreamPath } from './route-table';

describe('route matching', () => {
  it.each([
    ['/api/v1/auth/keys', 'auth', { kind: 'key', scope: 'admin' }],
    ['/api/v1/records/123', 'records', { kind: 'key', scope: 'records' }],
    ['/api/v1/entities', 'records', { kind: 'key', scope: 'records' }],
    ['/api/v1/export/active', 'records', { kind: 'key', scope: 'admin' }],
    ['/api/v1/upload/c/t/batch', 'ingestion', { kind: 'key', scope: 'upload' }],
    ['/api/v1/pipeline/status/1', 'ingestion', { kind: 'key', scope: 'upload' }],
    ['/api/v1/search/c', 'search', { kind: 'key', scope: 'search' }],
    ['/api/v1/health/search', 'search', { kind: 'none' }],
    ['/api/v1/usage', 'billing', { kind: 'key', scope: undefined }],
    ['/api/v1/billing/payment/webhook', 'billing', { kind: 'none' }],
    ['/api/v1/connectors/1/pull', 'connector', { kind: 'key', scope: 'admin' }],
    ['/api/v1/portal/keys', 'auth', { kind: 'portal' }],
    ['/open/v1/search', 'open', { kind: 'none' }],
    ['/mcp/', 'mcp', { kind: 'key', scope: 'search' }],
    ['/mcp', 'mcp', { kind: 'key', scope: 'search' }],
  ])('sends %s to %s', (path, service, access) => {
    expect(matchRoute(path)).toEqual({ prefix: expect.any(String), service, access });
  });

  it('matches whole segments only', () => {
    expect(matchRoute('/api/v1/recordsx')).toBeUndefined();
    expect(matchRoute('/api/v1/uploads/1')?.prefix).toBe('/api/v1/uploads');
    expect(matchRoute('/mcpx')).toBeUndefined();
  });

  it.each(['/', '/api/v1', '/api/v1/health', '/api/v1/billing/status', '/API/V1/auth/keys', '/open/v2/search'])('owns nothing at %s', (path) => {
    expect(matchRoute(path)).toBeUndefined();
  });

  it.each([
    '/api/v1/internal/keys/verify',
    '/api/v1/auth/../internal/keys/verify',
    '/api/v1/auth/%2e%2e/internal/keys/verify',
    '/api/v1/auth/%2E%2E/internal',
    '/api/v1/records/./x',
    '/api/v1/records/a%5c..%5cb',
    '/api/v1/records/%zz',
  ])('refuses %s', (path) => {
    expect(matchRoute(path)).toBeUndefined();
  });
});

describe('upstream paths', () => {
  it('drop the version root and keep the query string', () => {
    expect(upstreamPath('/api/v1/records?limit=5')).toBe('/records?limit=5');
    expect(upstreamPath('/open/v1/search')).toBe('/search');
    expect(upstreamPath('/open/v1?x=1')).toBe('/?x=1');
  });

  it('leave /mcp/ as it is', () => {
    expect(upstreamPath('/mcp/')).toBe('/mcp/');
  });

  it('strip only a leading root', () => {
    expect(upstreamPath('/api/v10/records')).toBe('/api/v10/records');
    expect(upstreamPath('/mcp/api/v1/x')).toBe('/mcp/api/v1/x');
  });
});
