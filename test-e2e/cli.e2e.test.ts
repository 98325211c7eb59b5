import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bearer, client, devTenant, startTrove } from './support/system';

jest.setTimeout(120_000);

const LAUNCHER = resolve(__dirname, '../packages/launcher/dist/main.js');
const PRODUCTION = {
  ENV: 'production',
  INTERNAL_TOKEN_SECRET: 'e2e-internal-token-secret-of-at-least-32-chars',
  API_KEY_SALT: 'e2e-api-key-salt-value',
};

it('creates a tenant and its first admin key from the CLI, and that key works in production mode', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'trove-cli-'));
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, ...PRODUCTION, DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
    delete env.DATABASE_URL;
    const out = spawnSync(process.execPath, [LAUNCHER, 'create-tenant', '--name', 'Acme'], { env, encoding: 'utf8' });
    expect(out.status).toBe(0);
    const key = /^key: (sk_live_[0-9a-f]{64})$/m.exec(out.stdout)?.[1];
    const tenantId = /^tenant_id: ([0-9a-f-]{36})$/m.exec(out.stdout)?.[1];
    expect(key).toBeDefined();
    expect(tenantId).toBeDefined();

    const trove = await startTrove({ dataDir, env: PRODUCTION });
    try {
      const api = client(trove.baseUrl);
      const keys = await api('GET', '/api/v1/auth/keys', { headers: bearer(key!) });
      expect(keys.status).toBe(200);
      expect(keys.body).toHaveLength(1);
      expect(keys.body[0].scopes).toEqual(['admin']);
      const rec = await api('POST', '/api/v1/records', {
        headers: bearer(key!),
        body: { name: 'first', collection: 'c', record_type: 't' },
      });
      expect(rec.status).toBe(201);
      // Outside development, X-Tenant-Id is no credential at all.
      const dev = await api('POST', '/api/v1/auth/keys', { headers: devTenant(randomUUID()), body: { name: 'x', scopes: ['admin'] } });
      expect(dev.status).toBe(401);
      expect(trove.output()).not.toContain(key!);
    } finally {
      await trove.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('refuses create-tenant without a name', () => {
  const out = spawnSync(process.execPath, [LAUNCHER, 'create-tenant'], {
    env: { ...process.env, ...PRODUCTION, DATA_DIR: mkdtempSync(join(tmpdir(), 'trove-cli-')) },
    encoding: 'utf8',
  });
  expect(out.status).toBe(1);
  expect(out.stderr).toContain('--name');
});
