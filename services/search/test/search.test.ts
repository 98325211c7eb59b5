import type { Response } from 'supertest';
import { clientOf, startSystem, type Client } from './helpers';
import { searchRules, type Api, type Res } from './rules';

function wrap(client: Client): Api {
  const res = (r: Response): Res => ({ status: r.status, body: r.body, text: r.text, headers: r.headers as Record<string, string> });
  return {
    get: async (path) => res(await client.get(path)),
    post: async (path, body) => res(await client.post(path, body)),
    patch: async (path, body) => res(await client.patch(path, body)),
    delete: async (path) => res(await client.delete(path)),
  };
}

searchRules(
  async () => {
    const sys = await startSystem();
    return {
      async tenant() {
        const t = sys.tenant();
        return { id: t.id, records: wrap(t.records), search: wrap(t.search), searchWithoutScope: wrap(clientOf(sys.search, t.id, ['records'])) };
      },
      // The public index is reached through the search service's internal route, which these clients can call.
      stop: () => sys.stop(),
    };
  },
  { inProcess: true },
);
