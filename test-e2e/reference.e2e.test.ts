import { referenceDocument } from '@trove/contracts';
import { useTrove } from './support/system';

jest.setTimeout(90_000);

const trove = useTrove();

describe('the API reference through the gateway, without a key', () => {
  it('serves the OpenAPI document of every endpoint at /api/v1/openapi.json', async () => {
    const res = await trove.api('GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual(referenceDocument('all'));
    expect(res.body.paths).toHaveProperty(['/api/v1/search/{collection}', 'post']);
  });

  it("serves the Open API's own at /open/v1/openapi.json, with the Open API's rate-limit headers", async () => {
    const res = await trove.api('GET', '/open/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(referenceDocument('open'));
    expect(Object.keys(res.body.paths).every((p: string) => p.startsWith('/open/v1/'))).toBe(true);
    expect(res.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  });
});
