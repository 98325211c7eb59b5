import { Ajv, type ValidateFunction } from 'ajv';
import { parseDocument } from 'yaml';

/**
 * The offline check of a compose file (docker-compose.yml), for machines without `docker compose`: the Compose
 * Specification's schema, then what the schema cannot see: references between services, health checks and the
 * conditions that wait for them, Trove's services and their backing servers, variables and volumes. Answers one
 * sentence per problem, naming the service and what to change; none when the file is sound.
 */
export interface ComposeInputs {
  /** The compose file's text. */
  compose: string;
  /** The text of the .env.example beside it. */
  envExample: string;
  /** The Compose Specification's JSON schema. */
  schema: object;
  /** A file named by the compose file (build context, bind mount), relative to its folder: its text, '' for a folder, undefined when absent. */
  read(path: string): string | undefined;
  /** Every Trove service (the folders under services/), each of which needs a container running --target=<name>. */
  troveServices: string[];
  /** Per Trove service, the optional backing servers its code reads the URL of (REDIS_URL, ELASTICSEARCH_URL): it must wait for them. */
  reads: Record<string, string[]>;
}

type Json = Record<string, unknown>;

/** The backing servers every Trove container's environment names, so any of them can run a command for the whole system. */
const NAMED_BY_EVERY_SERVICE = ['KAFKA_BROKERS', 'ELASTICSEARCH_URL', 'REDIS_URL'] as const;
/** Environment variables whose value is a secret: they must come from .env, never be written in the file. */
const SECRET_NAME = /(SECRET|SALT|PASSWORD|_KEY)$/;
/** Compose interpolation: $$ (a literal $), ${NAME}, ${NAME:-default}, ${NAME:?message} and the like, or $NAME. */
const INTERPOLATION = /\$(?:\$|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g;

export function checkCompose(inputs: ComposeInputs): string[] {
  const doc = parseDocument(inputs.compose, { merge: true });
  if (doc.errors.length > 0) return doc.errors.map((e) => `not valid YAML: ${e.message}`);
  const file = doc.toJS({ maxAliasCount: -1 }) as Json;

  const problems: string[] = [];
  problems.push(...schemaProblems(inputs.schema, file));
  problems.push(...variableProblems(file, inputs.envExample));
  const services = (file.services ?? {}) as Record<string, Json>;
  problems.push(...serviceProblems(file, services, inputs));
  problems.push(...troveProblems(services, inputs));
  return problems;
}

const validators = new WeakMap<object, ValidateFunction>();

function schemaProblems(schema: object, file: Json): string[] {
  let validate = validators.get(schema);
  if (!validate) {
    // The schema names draft-07 by an address Ajv does not know by that spelling; its content is plain draft-07.
    const { $schema: _ignored, ...body } = schema as Json;
    validate = new Ajv({ allErrors: true, strict: false }).compile(body);
    validators.set(schema, validate);
  }
  if (validate(file)) return [];
  const errors = (validate.errors ?? [])
    .filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf')
    .map(
      (e) =>
        `${e.instancePath || '/'} ${e.message}${e.keyword === 'enum' ? ` (${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')})` : ''}`,
    );
  return [`does not follow the Compose Specification: ${[...new Set(errors)].join('; ')}`];
}

/** Every string in the file, with where it is (services.gateway.ports[0]). */
function* strings(value: unknown, path: string): Generator<[string, string]> {
  if (typeof value === 'string') yield [path, value];
  else if (Array.isArray(value)) for (const [i, v] of value.entries()) yield* strings(v, `${path}[${i}]`);
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) yield* strings(v, path ? `${path}.${k}` : k);
}

interface Documented {
  names: Set<string>;
  /** Variables .env.example assigns a value outside a comment. */
  withValue: string[];
}

function readEnvExample(text: string): Documented {
  const names = new Set<string>();
  const withValue: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(#\s*)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!m) continue;
    names.add(m[2]);
    if (!m[1] && m[3].trim() !== '') withValue.push(m[2]);
  }
  return { names, withValue };
}

function variableProblems(file: Json, envExample: string): string[] {
  const documented = readEnvExample(envExample);
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [path, text] of strings(file, '')) {
    for (const m of text.matchAll(INTERPOLATION)) {
      const name = m[1] ?? m[4];
      if (!name || seen.has(name)) continue;
      seen.add(name);
      if (!documented.names.has(name)) problems.push(`\${${name}} (at ${path}) is not documented in .env.example`);
    }
  }
  for (const name of documented.withValue)
    problems.push(`.env.example gives ${name} a value: ship it empty (or commented out with its default), never a real value`);
  return problems;
}

/** A compose string with each variable replaced by its default (`${X:-d}` → d), or by `fallback` when it has none. */
function withDefaults(text: string, fallback: string): string {
  return text.replace(INTERPOLATION, (whole, name?: string, op?: string, arg?: string, bare?: string) => {
    if (whole === '$$') return '$';
    if (bare) return fallback;
    if (op === '-' || op === ':-') return arg ?? '';
    return name ? fallback : whole;
  });
}

interface Dependency {
  condition: string;
}

function dependenciesOf(service: Json): Record<string, Dependency> {
  const raw = service.depends_on;
  if (Array.isArray(raw)) return Object.fromEntries(raw.map((name) => [String(name), { condition: 'service_started' }]));
  return (raw ?? {}) as Record<string, Dependency>;
}

function hasHealthcheck(service: Json): boolean {
  const check = service.healthcheck as Json | undefined;
  if (!check || check.disable === true || check.disable === 'true') return false;
  const test = check.test;
  return !(Array.isArray(test) && test[0] === 'NONE') && test !== undefined;
}

function environmentOf(service: Json): Record<string, string> {
  const raw = service.environment;
  if (Array.isArray(raw))
    return Object.fromEntries(
      raw.map((entry) => {
        const [k, ...v] = String(entry).split('=');
        return [k, v.join('=')];
      }),
    );
  return Object.fromEntries(Object.entries((raw ?? {}) as Json).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

/** The image reference's tag ('' when it has none), ignoring a registry's port. */
function imageTag(image: string): string {
  const lastPart = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastPart.indexOf(':');
  return colon < 0 ? '' : lastPart.slice(colon + 1);
}

function serviceProblems(file: Json, services: Record<string, Json>, inputs: ComposeInputs): string[] {
  const problems: string[] = [];
  const volumes = new Set(Object.keys((file.volumes ?? {}) as Json));
  for (const [name, service] of Object.entries(services)) {
    // A service in a profile is a one-off (the contract suites): it runs to completion, and nothing waits for it.
    if (!service.profiles && !hasHealthcheck(service)) problems.push(`${name} has no healthcheck`);

    for (const [target, dep] of Object.entries(dependenciesOf(service))) {
      const other = services[target];
      if (!other) problems.push(`${name} depends on ${target}, which is not a service of this file`);
      else if (hasHealthcheck(other) && dep.condition === 'service_started')
        problems.push(`${name} waits only for ${target} to start: ${target} has a healthcheck, so wait with condition service_healthy`);
      else if (!hasHealthcheck(other) && dep.condition === 'service_healthy')
        problems.push(`${name} waits for ${target} to be healthy, but ${target} has no healthcheck`);
    }

    if (typeof service.image === 'string') {
      const image = withDefaults(service.image, '');
      if (image.includes('@sha256:')) {
        // A digest pins the image whatever its tag says.
      } else if (!imageTag(image)) problems.push(`${name}'s image ${image} has no tag: pin a version`);
      else if (imageTag(image) === 'latest') problems.push(`${name}'s image ${image} is not pinned: name a version, not latest`);
    } else if (!service.build) problems.push(`${name} has neither an image nor a build`);

    const build = service.build as Json | string | undefined;
    if (build) {
      const context = typeof build === 'string' ? build : String(build.context ?? '.');
      if (inputs.read(context) === undefined) problems.push(`${name}'s build context ${context} does not exist`);
      if (typeof build === 'object' && build.dockerfile) {
        const dockerfile = `${context.replace(/\/$/, '')}/${String(build.dockerfile)}`;
        if (inputs.read(dockerfile) === undefined) problems.push(`${name}'s Dockerfile ${dockerfile} does not exist`);
      }
    }

    for (const mount of mountsOf(service)) {
      if (mount.type === 'volume' && mount.source && !volumes.has(mount.source))
        problems.push(`${name} mounts the volume ${mount.source}, which the top-level volumes do not declare`);
      if (mount.type === 'bind' && inputs.read(mount.source) === undefined)
        problems.push(`${name} mounts ${mount.source}, which does not exist`);
    }

    for (const [key, value] of Object.entries(environmentOf(service))) {
      const password = /^[a-z][a-z0-9+.-]*:\/\/[^:/@]*:([^@]*)@/i.exec(value)?.[1];
      if (password !== undefined && !/^\$\{[^}]+\}$/.test(password))
        problems.push(`${name}'s ${key} writes its password in the file: take it from .env (\${...})`);
      else if (SECRET_NAME.test(key) && value !== '' && !/^\$\{[^}]+\}$/.test(value))
        problems.push(`${name}'s ${key} is written in the file: take it from .env (\${${key}:?...})`);
    }
  }
  return problems;
}

interface Mount {
  type: string;
  source: string;
  target: string;
}

function mountsOf(service: Json): Mount[] {
  return ((service.volumes ?? []) as unknown[]).map((entry) => {
    if (typeof entry === 'object' && entry) {
      const m = entry as Json;
      return { type: String(m.type ?? 'volume'), source: String(m.source ?? ''), target: String(m.target ?? '') };
    }
    const [source, target] = String(entry).split(':');
    if (target === undefined) return { type: 'anonymous', source: '', target: source };
    return { type: /^[./~]/.test(source) ? 'bind' : 'volume', source, target: target ?? '' };
  });
}

/** The hosts a backing server setting names: a URL's host, or each host of a comma-separated broker list. */
function hostsOf(value: string): string[] {
  const text = withDefaults(value, 'x');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    try {
      return [new URL(text).hostname];
    } catch {
      return [];
    }
  }
  return text
    .split(',')
    .map((broker) => broker.trim().split(':')[0])
    .filter(Boolean);
}

function troveProblems(services: Record<string, Json>, inputs: ComposeInputs): string[] {
  const problems: string[] = [];
  const byTarget = new Map<string, [string, Json]>();
  for (const [name, service] of Object.entries(services)) {
    const first = Array.isArray(service.command) ? String(service.command[0] ?? '') : String(service.command ?? '').split(' ')[0];
    const target = /^--target=([a-z-]+)$/.exec(first)?.[1];
    if (target) byTarget.set(target, [name, service]);
  }

  for (const trove of inputs.troveServices) {
    const found = byTarget.get(trove);
    if (!found) {
      problems.push(`no service runs --target=${trove}`);
      continue;
    }
    const [name, service] = found;
    const env = environmentOf(service);
    const deps = dependenciesOf(service);
    const own = `${trove.toUpperCase()}_DATABASE_URL`;
    const databaseVariable = env[own] !== undefined ? own : env.DATABASE_URL !== undefined ? 'DATABASE_URL' : undefined;

    if (!databaseVariable) problems.push(`${name}'s environment names no database (${own} or DATABASE_URL)`);
    for (const variable of NAMED_BY_EVERY_SERVICE)
      if (env[variable] === undefined) problems.push(`${name}'s environment has no ${variable}`);

    const waitsFor = (variable: string, what: string) => {
      for (const host of hostsOf(env[variable] ?? '')) {
        if (!services[host]) problems.push(`${name}'s ${variable} names ${host}, which is not a service of this file`);
        else if (!deps[host]) problems.push(`${name} does not depend on ${host} (${what}): add it to depends_on`);
      }
    };
    // Every service stores in its database and publishes events from its first start (packages/runtime opens both).
    if (databaseVariable) waitsFor(databaseVariable, 'its database');
    waitsFor('KAFKA_BROKERS', 'its event bus');
    for (const variable of inputs.reads[trove] ?? []) waitsFor(variable, `its code reads ${variable}`);

    if (databaseVariable) problems.push(...databaseCreated(name, withDefaults(env[databaseVariable] ?? '', 'x'), services, inputs));

    const port = trove === 'gateway' ? (env.PORT ?? '8080') : env[`${trove.toUpperCase()}_PORT`];
    const test = ((service.healthcheck as Json | undefined)?.test ?? []) as unknown;
    const probe = Array.isArray(test) ? test.join(' ') : String(test);
    if (port && hasHealthcheck(service) && !new RegExp(`\\b${port}\\b`).test(probe))
      problems.push(`${name}'s healthcheck does not probe its own port ${port}`);
  }

  const gateway = byTarget.get('gateway');
  if (gateway) {
    const [name, service] = gateway;
    const deps = dependenciesOf(service);
    for (const [target, [other]] of byTarget)
      if (target !== 'gateway' && !deps[other]) problems.push(`${name} does not depend on ${other}: the gateway routes to every service`);
    const published = ((service.ports ?? []) as unknown[]).map((p) =>
      typeof p === 'object' && p ? String((p as Json).target) : withDefaults(String(p), 'x').split(':').pop(),
    );
    const port = environmentOf(service).PORT ?? '8080';
    if (!published.includes(port)) problems.push(`${name} does not publish its port ${port}`);
  }
  return problems;
}

/** A Trove service's database must exist: created by an init script of the PostgreSQL service its URL names. */
function databaseCreated(name: string, url: string, services: Record<string, Json>, inputs: ComposeInputs): string[] {
  let host: string;
  let database: string;
  try {
    const parsed = new URL(url);
    host = parsed.hostname;
    database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  } catch {
    return [`${name}'s database URL ${url} cannot be read`];
  }
  const server = services[host];
  if (!server || !database) return [];
  const env = environmentOf(server);
  if ((env.POSTGRES_DB ?? env.POSTGRES_USER ?? 'postgres') === database) return [];
  const scripts = mountsOf(server)
    .filter((m) => m.type === 'bind' && m.target.startsWith('/docker-entrypoint-initdb.d'))
    .map((m) => inputs.read(m.source) ?? '');
  const created = new RegExp(`CREATE\\s+DATABASE\\s+"?${database}"?[\\s;]`, 'i');
  if (scripts.some((text) => created.test(text))) return [];
  return [`${name}'s database ${database} is created by no init script of ${host} (/docker-entrypoint-initdb.d)`];
}
