import { checkConformance, nonConformance } from './support/conformance';

const json = (extra: Record<string, string> = {}) => new Headers({ 'content-type': 'application/json; charset=utf-8', ...extra });

// Every answer a test fetches from a started gateway is checked against the API reference (support/conformance.ts);
// these fixtures show the check failing on answers that do not conform.
describe('the conformance check of end-to-end answers against the API reference', () => {
  it('passes an answer the reference describes', () => {
    expect(nonConformance({ method: 'GET', url: '/api/v1/collections', status: 200, headers: json(), body: { collections: [] } })).toBeUndefined();
    expect(nonConformance({ method: 'GET', url: '/api/v1/records/abc?x=1', status: 404, headers: json(), body: { detail: 'Record not found' } })).toBeUndefined();
    expect(
      nonConformance({ method: 'GET', url: '/api/v1/collections', status: 429, headers: json({ 'retry-after': '12' }), body: { detail: 'Rate limit exceeded.' } }),
    ).toBeUndefined();
  });

  it('fails a body that is not the declared answer', () => {
    expect(nonConformance({ method: 'GET', url: '/api/v1/collections', status: 200, headers: json(), body: { collections: [{ name: 7 }] } })).toMatch(
      /^GET \/api\/v1\/collections 200: /,
    );
    expect(() => checkConformance({ method: 'GET', url: '/api/v1/collections', status: 200, headers: json(), body: { collections: 'none' } })).toThrow(
      /does not conform to the API reference/,
    );
  });

  it('fails a status the reference does not list for the operation', () => {
    expect(nonConformance({ method: 'DELETE', url: '/api/v1/records/abc', status: 200, headers: json(), body: {} })).toMatch(
      /answered 200, which the reference does not list/,
    );
  });

  it('fails a missing required header and a header whose value is not of its schema', () => {
    expect(nonConformance({ method: 'GET', url: '/api/v1/collections', status: 429, headers: json(), body: { detail: 'Rate limit exceeded.' } })).toMatch(
      /the header Retry-After is missing/,
    );
    expect(
      nonConformance({ method: 'GET', url: '/api/v1/collections', status: 200, headers: json({ 'x-ratelimit-remaining': 'many' }), body: { collections: [] } }),
    ).toMatch(/the header X-RateLimit-Remaining is "many", not an integer/);
  });

  it('fails a media type the reference does not list for the status', () => {
    expect(
      nonConformance({ method: 'GET', url: '/api/v1/collections', status: 200, headers: new Headers({ 'content-type': 'text/html' }), body: undefined }),
    ).toMatch(/answered text\/html, which the reference does not list/);
  });

  it('leaves paths the reference has no operation for to the tests that send them on purpose', () => {
    expect(nonConformance({ method: 'GET', url: '/api/v1/no-such-thing', status: 404, headers: json(), body: { detail: 'Not Found' } })).toBeUndefined();
  });
});
