import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { checkCompose } from './compose-check';

/**
 * docker-compose.yml, checked offline: the Compose Specification's schema (as dclint, pinned in deploy/package.json,
 * ships it from the compose-spec repository), then references, health checks, variables and Trove's own rules
 * (compose-check.ts). Each rule is shown failing on a fixture under fixtures/compose-*, with its message. Where
 * `docker compose` is installed, its own `config -q` runs as well; elsewhere that test is skipped, and says so.
 */

const ROOT = join(__dirname, '..', '..');
const FIXTURES = join(__dirname, 'fixtures');
const SCHEMA = JSON.parse(
  readFileSync(join(dirname(require.resolve('dclint/package.json')), 'schemas', 'compose.schema.json'), 'utf8'),
) as object;

/** A file or folder relative to `base`: its text, '' for a folder, undefined when absent. */
function reader(base: string) {
  return (path: string) => {
    const full = join(base, path);
    if (!existsSync(full)) return undefined;
    return statSync(full).isDirectory() ? '' : readFileSync(full, 'utf8');
  };
}

/** Non-test TypeScript under a folder. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '__tests__' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const TROVE_SERVICES = readdirSync(join(ROOT, 'services'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** Which optional backing servers each service's code reads the setting of, so its container must wait for them. */
const READS = Object.fromEntries(
  TROVE_SERVICES.map((service) => {
    const code = sources(join(ROOT, 'services', service, 'src')).map((file) => readFileSync(file, 'utf8'));
    return [service, ['REDIS_URL', 'ELASTICSEARCH_URL'].filter((name) => code.some((text) => text.includes(`config.${name}`)))];
  }),
);

function checkRepository(): string[] {
  return checkCompose({
    compose: readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'),
    envExample: readFileSync(join(ROOT, '.env.example'), 'utf8'),
    schema: SCHEMA,
    read: reader(ROOT),
    troveServices: TROVE_SERVICES,
    reads: READS,
  });
}

/** The fixtures model two Trove services: search (reading Redis and Elasticsearch) and the gateway (Redis). */
function checkFixture(name: string): string[] {
  const dir = join(FIXTURES, name);
  return checkCompose({
    compose: readFileSync(join(dir, 'docker-compose.yml'), 'utf8'),
    envExample: readFileSync(join(dir, '.env.example'), 'utf8'),
    schema: SCHEMA,
    read: reader(dir),
    troveServices: ['gateway', 'search'],
    reads: { search: ['REDIS_URL', 'ELASTICSEARCH_URL'], gateway: ['REDIS_URL'] },
  });
}

describe('docker-compose.yml', () => {
  test('follows the Compose Specification and every rule of compose-check.ts', () => {
    expect(checkRepository()).toEqual([]);
  });

  test('the services read the backing settings the check assumes (search: Elasticsearch; gateway, auth, open, search: Redis)', () => {
    // The check derives each service's needs from its code; this pins what it found, so a reader sees the map.
    expect(READS).toMatchObject({
      search: expect.arrayContaining(['ELASTICSEARCH_URL', 'REDIS_URL']),
      gateway: ['REDIS_URL'],
      auth: ['REDIS_URL'],
      open: ['REDIS_URL'],
      records: [],
    });
  });
});

describe('compose-check on the fixtures', () => {
  test('the sound fixture passes, so each broken one fails for its own defect', () => {
    expect(checkFixture('compose-valid')).toEqual([]);
  });

  test.each<[string, string[]]>([
    [
      'compose-shallow-merge',
      [
        'search waits only for elasticsearch to start: elasticsearch has a healthcheck, so wait with condition service_healthy',
        'search waits only for redis to start: redis has a healthcheck, so wait with condition service_healthy',
        'search waits only for kafka to start: kafka has a healthcheck, so wait with condition service_healthy',
        'search does not depend on postgres (its database): add it to depends_on',
      ],
    ],
    ['compose-missing-healthcheck', ['search has no healthcheck', 'gateway waits for search to be healthy, but search has no healthcheck']],
    [
      'compose-undocumented-variable',
      ['${WEBHOOK_SECRET} (at services.gateway.environment.WEBHOOK_SECRET) is not documented in .env.example'],
    ],
    [
      'compose-unpinned-images',
      [
        "elasticsearch's image docker.elastic.co/elasticsearch/elasticsearch has no tag: pin a version",
        "redis's image redis:latest is not pinned: name a version, not latest",
      ],
    ],
    ['compose-undeclared-volume', ['postgres mounts the volume pgdata, which the top-level volumes do not declare']],
    ['compose-missing-database-setting', ["search's environment names no database (SEARCH_DATABASE_URL or DATABASE_URL)"]],
    [
      'compose-database-not-created',
      ["search's database trove_search is created by no init script of postgres (/docker-entrypoint-initdb.d)"],
    ],
    [
      'compose-literal-secrets',
      [
        "postgres's POSTGRES_PASSWORD is written in the file: take it from .env (${POSTGRES_PASSWORD:?...})",
        "gateway's GATEWAY_DATABASE_URL writes its password in the file: take it from .env (${...})",
      ],
    ],
    [
      'compose-env-example-value',
      ['.env.example gives POSTGRES_PASSWORD a value: ship it empty (or commented out with its default), never a real value'],
    ],
    ['compose-gateway-misses-service', ['gateway does not depend on search: the gateway routes to every service']],
    [
      'compose-unknown-dependency',
      [
        'search depends on elastic, which is not a service of this file',
        'search does not depend on elasticsearch (its code reads ELASTICSEARCH_URL): add it to depends_on',
      ],
    ],
    ['compose-wrong-probe-port', ["search's healthcheck does not probe its own port 8084"]],
    [
      'compose-missing-mount',
      [
        'postgres mounts ./init-db.sql, which does not exist',
        "search's database trove_search is created by no init script of postgres (/docker-entrypoint-initdb.d)",
        "gateway's database trove_gateway is created by no init script of postgres (/docker-entrypoint-initdb.d)",
      ],
    ],
    ['compose-missing-service', ['no service runs --target=search']],
  ])('%s fails with its problem', (fixture, expected) => {
    expect(checkFixture(fixture).sort()).toEqual([...expected].sort());
  });

  test('compose-schema-violation fails the Compose Specification, naming the field and what it allows', () => {
    expect(checkFixture('compose-schema-violation')).toEqual([
      expect.stringMatching(
        /^does not follow the Compose Specification: .*\/services\/gateway\/depends_on\/search\/condition must be equal to one of the allowed values \(service_started, service_healthy, service_completed_successfully\)/,
      ),
    ]);
  });
});

/** `docker compose` where it is installed (the docker CLI alone, as on CI's machine, has no compose command). */
const composeCli = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8', timeout: 20_000 }).status === 0;
if (!composeCli)
  console.warn('docker compose is not installed: `docker compose config -q` skipped; the offline schema and reference checks ran');
const withCompose = composeCli ? describe : describe.skip;

withCompose(`docker compose config -q${composeCli ? '' : ' (skipped: docker compose is not installed here)'}`, () => {
  let envDir: string;
  beforeAll(() => {
    // Every variable .env.example documents, given a random value, as an operator's .env would.
    envDir = mkdtempSync(join(tmpdir(), 'trove-compose-'));
    const filled = (dir: string) =>
      readFileSync(join(dir, '.env.example'), 'utf8')
        .split('\n')
        .filter((line) => /^[A-Za-z_][A-Za-z0-9_]*=$/.test(line))
        .map((line) => `${line}${randomBytes(32).toString('hex')}`)
        .join('\n');
    writeFileSync(join(envDir, 'repository.env'), filled(ROOT));
    writeFileSync(join(envDir, 'fixture.env'), filled(join(FIXTURES, 'compose-valid')));
  });
  afterAll(() => rmSync(envDir, { recursive: true, force: true }));

  const config = (file: string, envFile: string) =>
    spawnSync('docker', ['compose', '-f', file, '--env-file', envFile, '--profile', 'contracts', 'config', '-q'], {
      encoding: 'utf8',
      timeout: 60_000,
    });

  test('accepts docker-compose.yml with every variable set', () => {
    const result = config(join(ROOT, 'docker-compose.yml'), join(envDir, 'repository.env'));
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  test('rejects the schema-violating fixture', () => {
    const result = config(join(FIXTURES, 'compose-schema-violation', 'docker-compose.yml'), join(envDir, 'fixture.env'));
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/condition/);
  });
});
