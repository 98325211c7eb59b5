import { spawnSync } from 'node:child_process';
import { createTestDatabase, type TestDatabase } from '@trove/testing';
import { LAUNCHER, PRODUCTION } from './support/system';

jest.setTimeout(120_000);

/** `trove migrate` as the Kubernetes Job runs it: production secrets, a PostgreSQL server, nothing else set. */
function migrate(databaseUrl: string, args: string[] = []) {
  return spawnSync(process.execPath, [LAUNCHER, 'migrate', ...args], {
    env: { PATH: process.env.PATH, ...PRODUCTION, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

/** Each schema's applied migrations (version and when), for the schemas that have any. */
async function applied(db: TestDatabase): Promise<Record<string, string[]>> {
  const schemas = await db.database.db
    .selectFrom('information_schema.tables')
    .select('table_schema')
    .where('table_name', '=', 'schema_migrations')
    .execute();
  const out: Record<string, string[]> = {};
  for (const { table_schema: schema } of schemas as { table_schema: string }[]) {
    const rows = (await db.database.db.selectFrom(`${schema}.schema_migrations`).select(['version', 'applied_at']).orderBy('version').execute()) as {
      version: number;
      applied_at: Date;
    }[];
    out[schema] = rows.map((r) => `${r.version}@${r.applied_at.toISOString()}`);
  }
  return out;
}

describe('trove migrate', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase();
  });
  afterEach(async () => {
    await db.drop();
  });

  it("prepares every service's storage and exits; a second run finds everything done", async () => {
    // On a failure the whole result shows, stderr included.
    expect(migrate(db.url)).toMatchObject({ status: 0, stdout: 'migrated: records, auth, ingestion, connector, search, open, billing, mcp, gateway\n' });
    const after = await applied(db);
    // Each service's own schema, the event bus's tables and the PostgreSQL search engine's.
    expect(Object.keys(after).sort()).toEqual(['auth', 'billing', 'bus', 'connector', 'ingestion', 'open', 'records', 'search', 'search_engine']);
    for (const versions of Object.values(after)) expect(versions.length).toBeGreaterThan(0);

    expect(migrate(db.url)).toMatchObject({ status: 0 });
    expect(await applied(db)).toEqual(after);
  });

  it('prepares only the services of --target', async () => {
    expect(migrate(db.url, ['--target=records'])).toMatchObject({ status: 0, stdout: 'migrated: records\n' });
    expect(Object.keys(await applied(db)).sort()).toEqual(['bus', 'records']);
  });

  it('refuses a target that names no service, touching nothing', async () => {
    const out = migrate(db.url, ['--target=recrods']);
    expect(out.status).toBe(2);
    expect(out.stderr).toContain('Unknown target recrods');
    expect(await applied(db)).toEqual({});
  });
});
