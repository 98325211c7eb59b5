import { limitClassOf } from './limits';
import { ROUTES } from './route-table';

const classOf = (prefix: string) => limitClassOf(ROUTES.find((r) => r.prefix === prefix)!);

describe('limitClassOf', () => {
  it('counts searches (key and portal) and aggregations as search calls', () => {
    expect(classOf('/api/v1/search')).toEqual({ searchCall: true });
    expect(classOf('/api/v1/portal/search')).toEqual({ searchCall: true });
    expect(classOf('/api/v1/aggregate')).toEqual({ searchCall: true });
  });

  it('counts every other route, MCP included, as an API call only', () => {
    for (const prefix of ['/api/v1/records', '/api/v1/upload', '/api/v1/auth', '/api/v1/usage', '/api/v1/portal/records', '/mcp']) {
      expect(classOf(prefix)).toEqual({ searchCall: false });
    }
  });
});
