import { randomUUID } from 'node:crypto';
import { searchRules, type Api } from '../services/search/test/rules';
import { bearer, client, createKey, startSuiteSystem } from './support/system';

jest.setTimeout(120_000);

/** Every rule of private search, through the gateway of the whole system started as the README does. */
searchRules(
  async () => {
    const trove = await startSuiteSystem();
    const call = client(trove.baseUrl);
    const api = (key: string): Api => {
      const send = async (method: string, path: string, body?: unknown) => {
        const res = await call(method, `/api/v1${path}`, { headers: bearer(key), body });
        return { status: res.status, body: res.body, text: res.text, headers: Object.fromEntries(res.headers.entries()) };
      };
      return {
        get: (path) => send('GET', path),
        post: (path, body) => send('POST', path, body),
        patch: (path, body) => send('PATCH', path, body),
        delete: (path) => send('DELETE', path),
      };
    };
    const key = (tenant: string, scopes: string[]) => createKey(call, tenant, scopes);
    return {
      async tenant() {
        const id = randomUUID();
        const [searchKey, recordsKey] = [await key(id, ['search', 'records']), await key(id, ['records'])];
        return { id, records: api(searchKey), search: api(searchKey), searchWithoutScope: api(recordsKey) };
      },
      stop: () => trove.stop(),
    };
  },
  { inProcess: false },
);
