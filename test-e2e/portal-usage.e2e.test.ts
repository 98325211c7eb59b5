import { eventually } from '@trove/testing';
import { bearer, useTrove } from './support/system';
import { portalAuth, signUp } from './support/portal';

jest.setTimeout(120_000);

const { api } = useTrove();

/** Every day (UTC) of this month up to today with the given counts, zeros elsewhere: searches_by_day's shape. */
function daysSoFar(counts: Record<string, number>): Array<{ date: string; count: number }> {
  const month = new Date().toISOString().slice(0, 7);
  return Array.from({ length: new Date().getUTCDate() }, (_, i) => `${month}-${String(i + 1).padStart(2, '0')}`).map((date) => ({ date, count: counts[date] ?? 0 }));
}

const stepsOf = (body: { steps: Array<{ id: string; completed: boolean }> }) => Object.fromEntries(body.steps.map((s) => [s.id, s.completed]));

describe('portal usage (billing), quickstart and analytics through the gateway', () => {
  it('follows a new account from an empty quickstart to every step completed, counting its search and records', async () => {
    const { token, account } = await signUp(api);
    const portal = portalAuth(token);

    const fresh = await api('GET', '/api/v1/portal/quickstart', { headers: portal });
    expect(fresh.status).toBe(200);
    expect(stepsOf(fresh.body)).toEqual({ create_api_key: false, define_schema: false, upload_data: false, first_search: false });
    expect(fresh.body.all_completed).toBe(false);

    const key = await api('POST', '/api/v1/portal/keys', { headers: portal, body: { name: 'quickstart', scopes: ['upload', 'search'] } });
    expect(key.status).toBe(201);
    const withKey = bearer(key.body.key);
    const upload = await api('POST', '/api/v1/upload/parts/product/batch', {
      headers: withKey,
      body: { records: [{ name: 'Quickstart bolt M8' }, { name: 'Quickstart nut M8' }] },
    });
    expect(upload.status).toBe(201);
    const search = await api('POST', '/api/v1/search/parts', { headers: withKey, body: { query: 'quickstart bolt' } });
    expect(search.status).toBe(200);

    // Usage arrives through events, and search counts leave search every few seconds.
    await eventually(async () => {
      const res = await api('GET', '/api/v1/portal/quickstart', { headers: portal });
      expect(stepsOf(res.body)).toEqual({ create_api_key: true, define_schema: true, upload_data: true, first_search: true });
      expect(res.body.all_completed).toBe(true);
    }, 30_000);
    await eventually(async () => {
      const res = await api('GET', '/api/v1/portal/usage', { headers: portal });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        tenant_id: account.tenant_id,
        period: new Date().toISOString().slice(0, 7),
        records: { used: 2 },
        searches: { used: 1 },
        searches_by_day: daysSoFar({ [new Date().toISOString().slice(0, 10)]: 1 }),
        rate_limit: expect.objectContaining({ requests_per_minute: expect.any(Number), max_collections: expect.any(Number) }),
        allows_overage: expect.any(Boolean),
        estimated_overage_total: 0,
      });
    }, 30_000);
    // The same month through the key API: the billing service answers both from one usage table.
    await eventually(async () => {
      const res = await api('GET', '/api/v1/usage', { headers: withKey });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ tenant_id: account.tenant_id, usage: { requests: expect.any(Number), searches: 1, records: 2 } });
    }, 30_000);

    const analytics = await api('GET', '/api/v1/portal/analytics', { headers: portal });
    expect(analytics.status).toBe(200);
    expect(analytics.body).toMatchObject({
      tenant_id: account.tenant_id,
      total_open_searches: 0,
      collections: [{ collection: 'parts', record_count: 2, public_count: 0, open_searches: 0 }],
    });
  });

  it('refuses the portal routes without a portal token, and with an API key', async () => {
    const { token } = await signUp(api);
    const key = await api('POST', '/api/v1/portal/keys', { headers: portalAuth(token), body: { name: 'admin', scopes: ['admin'] } });
    for (const path of ['/api/v1/portal/usage', '/api/v1/portal/quickstart', '/api/v1/portal/analytics']) {
      expect((await api('GET', path)).status).toBe(401);
      expect((await api('GET', path, { headers: bearer(key.body.key) })).status).toBe(401);
    }
  });
});
