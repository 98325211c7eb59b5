import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';

// The import boundaries of eslint.config.mjs, shown on a fixture linted under the paths it pretends to have (the
// fixtures folder itself is left out of `pnpm run lint`).
const ROOT = join(__dirname, '../../..');
const FIXTURE = readFileSync(join(__dirname, '__tests__/fixtures/crosses-boundaries.ts'), 'utf8');

async function lintAs(path: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(FIXTURE, { filePath: join(ROOT, path), warnIgnored: true });
  return result.messages.map((m) => `${m.line} ${m.ruleId}: ${m.message}`);
}

describe('import boundaries', () => {
  it('refuses a service importing another service, by package or by path, and the test harness', async () => {
    const errors = await lintAs('services/search/src/fixture.ts');
    expect(errors).toEqual([
      expect.stringMatching(/^2 no-restricted-imports: '@trove\/records-service' import is restricted.*Only apps\/trove/),
      expect.stringMatching(/^3 no-restricted-imports: '\.\.\/\.\.\/records\/src\/service' import is restricted.*never reaches into another service/),
      expect.stringMatching(/^4 no-restricted-imports: '@trove\/testing' import is restricted.*tests and benches only/),
    ]);
  });

  it('refuses the same in a shared package', async () => {
    expect(await lintAs('packages/bus/src/fixture.ts')).toHaveLength(3);
  });

  it('lets the launcher import services, but not by path and not the test harness', async () => {
    const errors = await lintAs('apps/trove/src/fixture.ts');
    expect(errors.map((e) => e.split(':')[0])).toEqual(['3 no-restricted-imports', '4 no-restricted-imports']);
  });

  it('lets tests and benches import anything', async () => {
    for (const path of ['services/search/test/fixture.ts', 'services/search/src/fixture.test.ts', 'test-e2e/fixture.ts', 'bench/src/fixture.ts']) {
      expect(await lintAs(path)).toEqual([]);
    }
  });
});

describe('declared dependencies', () => {
  const manifests = ['apps', 'packages', 'services'].flatMap((dir) =>
    readdirSync(join(ROOT, dir)).map((name) => {
      const manifest = JSON.parse(readFileSync(join(ROOT, dir, name, 'package.json'), 'utf8')) as { name: string; dependencies?: Record<string, string> };
      return { name: manifest.name, dependencies: Object.keys(manifest.dependencies ?? {}) };
    }),
  );

  it('name a service only in the launcher, and the test harness nowhere', () => {
    const crossings = manifests.flatMap(({ name, dependencies }) =>
      dependencies.filter((d) => d === '@trove/testing' || (name !== '@trove/app' && d.endsWith('-service'))).map((d) => `${name} -> ${d}`),
    );
    expect(manifests.map((m) => m.name)).toEqual(expect.arrayContaining(['@trove/app', '@trove/records-service', '@trove/testing']));
    expect(crossings).toEqual([]);
  });
});
