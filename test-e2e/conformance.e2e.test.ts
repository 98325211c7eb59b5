import { checkConformance, nonConformance } from './support/conformance';

// Every answer the end-to-end client receives is checked against the API reference (support/system.ts's client);
// these fixtures show the check failing on answers that do not conform.
describe('the conformance check of end-to-end answers against the API reference', () => {
  it('passes an answer the reference describes', () => {
    expect(nonConformance('GET', '/api/v1/collections', 200, 'application/json; charset=utf-8', { collections: [] })).toBeUndefined();
    expect(nonConformance('GET', '/api/v1/records/abc?x=1', 404, 'application/json', { detail: 'Record not found' })).toBeUndefined();
  });

  it('fails a body that is not the declared answer', () => {
    expect(nonConformance('GET', '/api/v1/collections', 200, 'application/json', { collections: [{ name: 7 }] })).toMatch(
      /^GET \/api\/v1\/collections 200: /,
    );
    expect(() => checkConformance('GET', '/api/v1/collections', 200, 'application/json', { collections: 'none' })).toThrow(
      /does not conform to the API reference/,
    );
  });

  it('fails a status the reference does not list for the operation', () => {
    expect(nonConformance('DELETE', '/api/v1/records/abc', 200, 'application/json', {})).toMatch(/answered 200, which the reference does not list/);
  });

  it('leaves paths the reference has no operation for to the tests that send them on purpose', () => {
    expect(nonConformance('GET', '/api/v1/no-such-thing', 404, 'application/json', { detail: 'Not Found' })).toBeUndefined();
  });
});
