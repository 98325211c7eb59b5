import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROUTES } from '@trove/gateway-service';
import { SERVICE_NAMES, configSchema, loadConfig, servicePort } from '@trove/platform';
import { parse, parseAllDocuments } from 'yaml';
import { callGraphFromCode, kustomize } from './k8s-render';
import {
  ingressProblems,
  migratePhaseProblems,
  networkProblems,
  podProblems,
  referenceProblems,
  type ExternalSecrets,
  type OutsideSources,
  type TroveSettings,
} from './k8s-rules';
import { KubernetesSchemas, type K8sObject } from './k8s-schema';

/*
 * The Kubernetes manifests, offline: each overlay as kustomize builds it, every object against the strict Kubernetes
 * schemas, then the rules no schema knows (k8s-rules.ts). Each rule is shown to catch what it is for on a fixture
 * that breaks it (fixtures/k8s-*), and the secret generator to write what the overlays refer to.
 */

const ROOT = resolve(__dirname, '../..');
const K8S = join(ROOT, 'k8s');
const GENERATOR = join(K8S, 'generate-secrets.sh');
const EXAMPLE = join(K8S, 'trove-secrets.example');

// Building the schemas compiles the Kubernetes declarations: seconds, more on a loaded machine.
jest.setTimeout(180_000);

let schemas: KubernetesSchemas;
beforeAll(() => {
  schemas = new KubernetesSchemas();
});

/** A secret value production accepts (no placeholder), for reading the ConfigMaps through Trove's own configuration. */
const secret = () => randomBytes(32).toString('hex');

function generate(args: string[], env: Record<string, string> = {}) {
  return spawnSync('bash', [GENERATOR, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, ...env } });
}

function documents(text: string): K8sObject[] {
  return parseAllDocuments(text).map((d) => d.toJS() as K8sObject);
}

const stringData = (o: K8sObject | undefined) => (o?.stringData ?? {}) as Record<string, string>;

/** The keys of trove-secrets that may be left out (the example says so). */
const OPTIONAL_SECRETS = ['WEBHOOK_SECRET', 'STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'];

/** The Secrets the overlays refer to and never contain: the example documents trove-secrets, the generator the rest. */
function externalSecrets(): ExternalSecrets {
  const example = parse(readFileSync(EXAMPLE, 'utf8')) as K8sObject;
  const dev = documents(generate(['--dev']).stdout);
  const devPostgres = dev.find((o) => o.metadata?.name === 'trove-dev-postgres');
  return {
    'trove-secrets': { keys: Object.keys(stringData(example)), documentedIn: 'k8s/trove-secrets.example' },
    'trove-dev-postgres': { keys: Object.keys(stringData(devPostgres)), documentedIn: 'k8s/generate-secrets.sh --dev' },
  };
}

/** The ConfigMap every Trove container reads, as Trove's configuration reads it (which refuses a bad value). */
function troveSettings(objects: K8sObject[]): TroveSettings & ReturnType<typeof loadConfig> {
  const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata?.name?.startsWith('trove-config'));
  const data = (configMap?.data ?? {}) as Record<string, string>;
  const config = loadConfig({ ...data, INTERNAL_TOKEN_SECRET: secret(), API_KEY_SALT: secret(), JWT_SECRET: secret() });
  const ports = Object.fromEntries(SERVICE_NAMES.map((name) => [name, servicePort(config, name, data)]));
  return { ...config, TMPDIR: data.TMPDIR, ports };
}

const namespaceNamed = (name: string) => ({ 'kubernetes.io/metadata.name': name });
const OUTSIDE: OutsideSources = {
  ingressController: { name: 'namespace ingress-nginx', namespace: namespaceNamed('ingress-nginx'), pod: {}, sameNamespace: false },
  monitoring: { name: 'namespace monitoring', namespace: namespaceNamed('monitoring'), pod: {}, sameNamespace: false },
  elsewhere: { name: 'namespace default', namespace: namespaceNamed('default'), pod: {}, sameNamespace: false },
};

const CALLS = callGraphFromCode(ROOT, [...new Set(ROUTES.map((r) => r.service))]);

/** Every problem of one overlay's output, schema and rules together. */
function problems(objects: K8sObject[]): string[] {
  const settings = troveSettings(objects);
  return [
    ...schemas.problems(objects),
    ...referenceProblems(objects, externalSecrets()),
    ...podProblems(objects, settings),
    ...ingressProblems(objects, settings),
    ...networkProblems(objects, CALLS, OUTSIDE),
    ...migratePhaseProblems(objects),
  ];
}

const SERVICES = ['gateway', 'auth', 'records', 'ingestion', 'search', 'open', 'billing', 'connector', 'mcp'];
const named = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind).map((o) => o.metadata?.name).sort();

describe.each(['dev', 'prod'])('the %s overlay', (overlay) => {
  let objects: K8sObject[];
  beforeAll(async () => {
    objects = await kustomize(join(K8S, 'overlays', overlay));
  });

  it('passes the strict schemas and every rule', () => {
    expect(problems(objects)).toEqual([]);
  });

  it('runs each service as a Deployment behind a Service of its name, and migrates in a Job', () => {
    expect(named(objects, 'Deployment')).toEqual([...SERVICES].sort());
    expect(named(objects, 'Service')).toEqual(expect.arrayContaining(SERVICES));
    expect(named(objects, 'Job')).toEqual(['trove-migrate']);
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
  });

  it('sets only settings Trove knows, each of them a value its configuration accepts', () => {
    const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata?.name?.startsWith('trove-config'));
    // servicePort reads each <NAME>_PORT, not all of which the schema declares; TMPDIR is Node's, where uploads spool.
    const known = new Set([...Object.keys(configSchema.in.shape), ...SERVICE_NAMES.map((n) => `${n.toUpperCase()}_PORT`), 'TMPDIR']);
    expect(Object.keys((config?.data ?? {}) as object).filter((k) => !known.has(k))).toEqual([]);
    expect(() => troveSettings(objects)).not.toThrow();
  });
});

describe('the prod overlay', () => {
  it('autoscales gateway, search and ingestion, budgets every service, and names the backing services', async () => {
    const objects = await kustomize(join(K8S, 'overlays', 'prod'));
    expect(named(objects, 'HorizontalPodAutoscaler')).toEqual(['gateway', 'ingestion', 'search']);
    expect(named(objects, 'PodDisruptionBudget')).toEqual([...SERVICES].sort());
    const settings = troveSettings(objects);
    expect(settings.KAFKA_BROKERS?.length).toBeGreaterThan(0);
    expect(settings.ELASTICSEARCH_URL).toBeDefined();
    expect(settings.REDIS_URL).toBeDefined();
  });
});

describe('each rule fails on the fixture that breaks it', () => {
  it.each([
    ['k8s-unknown-field', ['Deployment/gateway: /spec/template/spec/containers/0: unknown field "readinesProbe"']],
    ['k8s-missing-probe', ['Deployment/records container trove: has no livenessProbe']],
    [
      'k8s-selector-matches-nothing',
      ['Service/search: selector {"app.kubernetes.io/component":"serach","app.kubernetes.io/name":"trove"} matches no pod of a Deployment or StatefulSet'],
    ],
    ['k8s-unknown-secret-key', ['Deployment/auth container trove env AUTH_DATABASE_URL: Secret trove-secrets has no key AUTH_DB_URL (k8s/trove-secrets.example)']],
    ['k8s-missing-volume', ['Deployment/search container trove: mounts volume state, which the pod does not declare']],
    [
      'k8s-read-only-state',
      [
        'Deployment/connector container trove: DATA_DIR /var/lib/trove/data is on no writable volume, and the root filesystem is read-only',
        'Deployment/connector container trove: TMPDIR /var/lib/trove is on no writable volume, and the root filesystem is read-only',
      ],
    ],
    ['k8s-writable-root', ['Deployment/open container trove: readOnlyRootFilesystem is not true']],
    ['k8s-image-latest', ['Deployment/mcp container trove: image ghcr.io/OWNER/trove:latest is not pinned to a version']],
    [
      'k8s-wrong-service',
      ['Deployment/auth container trove: its http port is 9081, but auth listens on 8081', 'Deployment/billing container trove: does not run --target=billing'],
    ],
    ['k8s-short-grace', ['Deployment/ingestion: terminationGracePeriodSeconds 20 is shorter than its preStop and shutdown (30 s)']],
    [
      'k8s-autoscaler-target',
      [
        'HorizontalPodAutoscaler/search: targets Deployment/serach, which is not a Deployment of this output',
        'HorizontalPodAutoscaler/gateway: Deployment/gateway sets replicas (1), which the autoscaler owns',
      ],
    ],
    ['k8s-network-policies', ['NetworkPolicy: open cannot reach records, which it calls', 'NetworkPolicy: billing admits mcp, which does not call it']],
    [
      'k8s-ingress-limits',
      [
        'Ingress/trove: proxy-body-size 1m refuses an upload of UPLOAD_MAX_BYTES (52428800) with its framing',
        'Ingress/trove: proxy-read-timeout 60 s ends an upload that may take UPLOAD_TIMEOUT_MS (600000 ms)',
        'Ingress/trove: proxy-send-timeout 60 s ends an upload that may take UPLOAD_TIMEOUT_MS (600000 ms)',
      ],
    ],
    ['k8s-migrate-phase', ['Job/trove-migrate: its ServiceAccount trove is not labelled trove/phase=migrate']],
  ])('%s', async (fixture, expected) => {
    expect(problems(await kustomize(join(__dirname, 'fixtures', fixture))).sort()).toEqual([...expected].sort());
  });

  it('fails loudly, not silently, where kubectl is missing', async () => {
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      await expect(kustomize(join(K8S, 'overlays', 'dev'))).rejects.toThrow('kubectl is not on PATH');
    } finally {
      process.env.PATH = path;
    }
  });
});

describe('generate-secrets.sh', () => {
  const server = (password: string) => `postgres://trove:${password}@db.internal:5432`;

  it('writes every key the example documents, each a new value that production accepts', () => {
    const run = () => {
      const out = generate([], { DATABASE_SERVER_URL: server(secret()) });
      expect(out.status).toBe(0);
      const objects = documents(out.stdout);
      expect(schemas.problems(objects)).toEqual([]);
      expect(objects.map((o) => `${o.kind}/${o.metadata?.namespace}/${o.metadata?.name}`)).toEqual(['Secret/trove/trove-secrets']);
      return stringData(objects[0]);
    };
    const first = run();
    const example = Object.keys(stringData(parse(readFileSync(EXAMPLE, 'utf8')) as K8sObject));
    expect(Object.keys(first).sort()).toEqual(example.filter((k) => !OPTIONAL_SECRETS.includes(k)).sort());
    expect(first.RECORDS_DATABASE_URL).toMatch(/^postgres:\/\/trove:[0-9a-f]{64}@db\.internal:5432\/trove_records$/);
    expect(() => loadConfig({ ENV: 'production', ...first })).not.toThrow();
    const second = run();
    expect(second.INTERNAL_TOKEN_SECRET).not.toBe(first.INTERNAL_TOKEN_SECRET);
    expect(second.CONNECTOR_ENCRYPTION_KEY).not.toBe(first.CONNECTOR_ENCRYPTION_KEY);
  });

  it('copies the optional secrets in when they are set, quoting what YAML would misread', () => {
    const out = generate([], { DATABASE_SERVER_URL: "postgres://tr'ove:p#w: 1@db:5432/", WEBHOOK_SECRET: '1e10', STRIPE_SECRET_KEY: "sk_'x" });
    const data = stringData(documents(out.stdout)[0]);
    expect(data.WEBHOOK_SECRET).toBe('1e10');
    expect(data.STRIPE_SECRET_KEY).toBe("sk_'x");
    expect(data.AUTH_DATABASE_URL).toBe("postgres://tr'ove:p#w: 1@db:5432/trove_auth");
  });

  it('for the dev overlay, also writes the in-cluster PostgreSQL password, which every service shares one database with', () => {
    const out = generate(['--dev']);
    expect(out.status).toBe(0);
    const [postgres, trove] = documents(out.stdout);
    const password = stringData(postgres).POSTGRES_PASSWORD;
    expect(password).toMatch(/^[0-9a-f]{64}$/);
    for (const service of SERVICES) expect(stringData(trove)[`${service.toUpperCase()}_DATABASE_URL`]).toBe(`postgres://trove:${password}@postgres:5432/trove`);
  });

  it('refuses to guess where the databases are', () => {
    const out = generate([]);
    expect(out.status).toBe(2);
    expect(out.stderr).toContain('set DATABASE_SERVER_URL');
  });

  it("leaves the example's placeholders for production to refuse, naming each", () => {
    const example = stringData(parse(readFileSync(EXAMPLE, 'utf8')) as K8sObject);
    const refused = () => loadConfig({ ENV: 'production', ...example });
    expect(refused).toThrow(/INTERNAL_TOKEN_SECRET: looks like a placeholder/);
    expect(refused).toThrow(/CONNECTOR_ENCRYPTION_KEY/);
    expect(refused).toThrow(/RECORDS_DATABASE_URL: its password looks like a placeholder/);
  });
});
