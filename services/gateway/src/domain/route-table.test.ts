import { matchRoute, normalisePath, upstreamPath } from './route-table';

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
    ['/api/v1/portal/auth/signup', 'auth', { kind: 'none' }],
    ['/api/v1/portal/account', 'auth', { kind: 'portal' }],
    ['/api/v1/portal/usage', 'billing', { kind: 'portal' }],
    ['/api/v1/portal/billing/checkout', 'billing', { kind: 'portal' }],
    ['/api/v1/portal/billing/status', 'billing', { kind: 'portal' }],
    ['/api/v1/portal/quickstart', 'auth', { kind: 'portal' }],
    ['/api/v1/portal/analytics', 'open', { kind: 'portal' }],
    ['/api/v1/portal/collections', 'records', { kind: 'portal' }],
    ['/api/v1/portal/collections/parts/swap', 'records', { kind: 'portal' }],
    ['/api/v1/portal/collections/parts/replace-status', 'records', { kind: 'portal' }],
    ['/api/v1/portal/collections/parts/replace', 'ingestion', { kind: 'portal' }],
    ['/api/v1/portal/collections/Parts.2024/replace', 'ingestion', { kind: 'portal' }],
    ['/api/v1/portal/records/1/visibility', 'records', { kind: 'portal' }],
    ['/api/v1/portal/entities/1', 'records', { kind: 'portal' }],
    ['/api/v1/portal/verticals/v/reindex', 'records', { kind: 'portal' }],
    ['/api/v1/portal/search/parts', 'search', { kind: 'portal' }],
    ['/api/v1/portal/upload/parts/t/upload', 'ingestion', { kind: 'portal' }],
    ['/open/v1/search', 'open', { kind: 'none' }],
    ['/mcp/', 'mcp', { kind: 'key', scope: 'search' }],
    ['/mcp', 'mcp', { kind: 'key', scope: 'search' }],
  ])('sends %s to %s', (path, service, access) => {
    expect(matchRoute(path)).toEqual({ route: { prefix: expect.any(String), service, access }, path });
  });

  it('lets * stand for exactly one segment, and the most specific entry win', () => {
    expect(matchRoute('/api/v1/portal/collections/parts/replace')?.route.service).toBe('ingestion');
    expect(matchRoute('/api/v1/portal/collections/parts/replace/')?.route.service).toBe('ingestion');
    // No segment, two segments, or a longer last segment are not the replace upload: they stay records'.
    expect(matchRoute('/api/v1/portal/collections/replace')?.route.service).toBe('records');
    expect(matchRoute('/api/v1/portal/collections/a/b/replace')?.route.service).toBe('records');
    expect(matchRoute('/api/v1/portal/collections/parts/replacement')?.route.service).toBe('records');
    expect(matchRoute('/api/v1/portal/collections/parts/cancel-replace')?.route.service).toBe('records');
    // Literal segments compare case-insensitively and must then be spelt as the table does; * takes any spelling.
    expect(matchRoute('/api/v1/portal/collections/PARTS/replace')?.path).toBe('/api/v1/portal/collections/PARTS/replace');
    expect(matchRoute('/api/v1/portal/collections/parts/REPLACE')).toBeUndefined();
    expect(matchRoute('/api/v1/portal/collections/%70arts/replace')?.path).toBe('/api/v1/portal/collections/parts/replace');
  });

  it('owns no portal path outside the agreed ones', () => {
    expect(matchRoute('/api/v1/portal')).toBeUndefined();
    expect(matchRoute('/api/v1/portal/billingx')).toBeUndefined();
    expect(matchRoute('/api/v1/portal/internal/x')).toBeUndefined();
  });

  it('matches whole segments only', () => {
    expect(matchRoute('/api/v1/recordsx')).toBeUndefined();
    expect(matchRoute('/api/v1/uploads/1')?.route.prefix).toBe('/api/v1/uploads');
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
    '/api/v1/records/%',
    '/api/v1/records/a\\b',
    '/api/v1/records/a%00b',
    '/api/v1/records/.%2E/x',
  ])('refuses %s', (path) => {
    expect(matchRoute(path)).toBeUndefined();
  });

  // Services route case-insensitively and read percent-encoding; none of these may reach an /internal route.
  it.each([
    '/open/v1/INTERNAL/open/search-counts',
    '/open/v1/Internal/open/search-counts',
    '/open/v1//internal/open/search-counts',
    '/open/v1///INTERNAL//open/search-counts',
    '/open/v1/%69nternal/open/search-counts',
    '/open/v1/%49NTERNAL/open/search-counts',
    '/open/v1/internal',
    '/open/v1/internal/',
    '/open/v1/x/..%2Finternal/open/search-counts',
    '/open/v1/x%2F..%2Finternal/open/search-counts',
    '/open/v1/x%5C..%5Cinternal',
    '/open/v1/%252e%252e/internal',
    '/open/v1/x%252F..%252Finternal',
    '/api/v1/auth/..%2finternal/keys/verify',
    '/api/v1//internal/keys/verify',
    '/api/v1/InTeRnAl/keys/verify',
  ])('refuses %s', (path) => {
    expect(matchRoute(path)).toBeUndefined();
  });

  it.each(['/API/v1/records', '/api/V1/records', '/api/v1/RECORDS', '/api/v1/Records/1', '/Open/v1/search', '/MCP/', '/api/v1/health/SEARCH'])(
    'refuses %s, a route spelled in another case than its own',
    (path) => {
      expect(matchRoute(path)).toBeUndefined();
    },
  );

  it('matches and forwards one normalised spelling', () => {
    expect(matchRoute('/api/v1//records///123')).toEqual({ route: expect.objectContaining({ service: 'records' }), path: '/api/v1/records/123' });
    expect(matchRoute('/api/v1/%72ecords/%41-1')?.path).toBe('/api/v1/records/A-1');
    expect(matchRoute('/api/v1/records/x/RECORDS')?.path).toBe('/api/v1/records/x/RECORDS');
    expect(matchRoute('/open/v1/records/INTERNAL')?.path).toBe('/open/v1/records/INTERNAL');
  });
});

describe('path normalisation', () => {
  it.each([
    ['/api/v1/records', '/api/v1/records'],
    ['//api//v1//records', '/api/v1/records'],
    ['/mcp/', '/mcp/'],
    ['/mcp//', '/mcp/'],
    ['/', '/'],
    ['/api/v1/search/%7Ecol', '/api/v1/search/~col'],
    ['/api/v1/search/a%20b%c3%a9', '/api/v1/search/a%20b%C3%A9'],
    ['/api/v1/search/a+b', '/api/v1/search/a+b'],
  ])('spells %s as %s', (raw, normal) => {
    expect(normalisePath(raw)).toBe(normal);
  });

  it.each(['', 'api/v1/records', '/a/%2f', '/a/%2F', '/a/%5c', '/a/%25', '/a/%252F', '/a/%', '/a/%4', '/a/..', '/a/.', '/a/%2e', '/a/\\'])('refuses %s', (raw) => {
    expect(normalisePath(raw)).toBeUndefined();
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
