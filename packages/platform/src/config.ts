import { createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { z } from 'zod';

/** Raised when the environment does not describe a runnable configuration; the message names each bad variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
const optionalUrl = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(z.string().url().optional())
  .optional();
const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1' || v === 'yes');

import { type ServiceName } from '@trove/contracts';

export { SERVICE_NAMES, type ServiceName } from '@trove/contracts';

/** Default port of each service; the gateway listens on PORT. */
export const DEFAULT_PORTS: Record<ServiceName, number> = {
  gateway: 8080,
  auth: 8081,
  records: 8082,
  ingestion: 8083,
  search: 8084,
  open: 8085,
  billing: 8086,
  connector: 8087,
  mcp: 8088,
};

const DEV_API_KEY_SALT = 'trove-development-api-key-salt-not-for-production';

let generatedSecret: string | undefined;

/**
 * The internal token secret of a process given none: random, made once, so every service of the process shares it
 * and nothing outside the process can sign a token its services accept. A published constant here would let anyone
 * who reaches a service port act as any tenant. Processes that must share a secret need INTERNAL_TOKEN_SECRET.
 */
function processSecret(): string {
  generatedSecret ??= randomBytes(32).toString('hex');
  return generatedSecret;
}

let generatedJwtSecret: string | undefined;

/**
 * The portal token secret of a process given no JWT settings, made once like the internal token secret: tokens it
 * signs are good only in this process (and only until it restarts), which is what a development system needs.
 */
function processJwtSecret(): string {
  generatedJwtSecret ??= randomBytes(32).toString('hex');
  return generatedJwtSecret;
}

let generatedConnectorKey: string | undefined;

/**
 * The connector credentials key of a process given none, made once like the internal token secret: what it encrypts
 * is readable only by this process, until it stops. A production process running the connector service refuses to start without one.
 */
function processConnectorKey(): string {
  generatedConnectorKey ??= randomBytes(32).toString('base64');
  return generatedConnectorKey;
}

/** A 256-bit key written as 64 hex characters or as base64 (44 characters). */
export function connectorKeyBytes(text: string): Buffer | undefined {
  const key = text.trim();
  if (/^[0-9a-f]{64}$/i.test(key)) return Buffer.from(key, 'hex');
  if (/^[A-Za-z0-9+/]{43}=?$/.test(key)) {
    const bytes = Buffer.from(key, 'base64');
    return bytes.length === 32 ? bytes : undefined;
  }
  return undefined;
}

/** A PEM key from the environment, where newlines are often written as the two characters \n. */
const pem = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v.replace(/\\n/g, '\n')))
  .optional();

/** Whether the PEM text reads as an RSA key of the kind `read` makes; a bad key stops start-up, not every sign-in. */
function isRsaKey(text: string, read: (text: string) => KeyObject): boolean {
  try {
    return read(text).asymmetricKeyType === 'rsa';
  } catch {
    return false;
  }
}

/** The public half of a PEM key (private or public) in one spelling, to compare two keys. */
const spki = (text: string) => createPublicKey(text).export({ type: 'spki', format: 'pem' }).toString();

export const configSchema = z
  .object({
    ENV: z.enum(['development', 'production', 'test']).default('production'),
    DEPLOYMENT_MODE: z.enum(['self_hosted', 'cloud']).default('self_hosted'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** JSON lines, or human-readable text; unset, text in development and JSON otherwise (resolved below). */
    LOG_FORMAT: z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), z.enum(['json', 'pretty']).optional()),
    /** Bind address of the gateway, and of every service of a process that runs only some of them. */
    HOST: z.string().default('0.0.0.0'),
    PORT: port(DEFAULT_PORTS.gateway),
    AUTH_PORT: port(DEFAULT_PORTS.auth),
    RECORDS_PORT: port(DEFAULT_PORTS.records),
    INGESTION_PORT: port(DEFAULT_PORTS.ingestion),
    SEARCH_PORT: port(DEFAULT_PORTS.search),
    OPEN_PORT: port(DEFAULT_PORTS.open),
    BILLING_PORT: port(DEFAULT_PORTS.billing),
    MCP_PORT: port(DEFAULT_PORTS.mcp),
    AUTH_URL: optionalUrl,
    RECORDS_URL: optionalUrl,
    INGESTION_URL: optionalUrl,
    SEARCH_URL: optionalUrl,
    OPEN_URL: optionalUrl,
    BILLING_URL: optionalUrl,
    CONNECTOR_URL: optionalUrl,
    MCP_URL: optionalUrl,
    DATABASE_URL: optionalUrl,
    AUTH_DATABASE_URL: optionalUrl,
    RECORDS_DATABASE_URL: optionalUrl,
    GATEWAY_DATABASE_URL: optionalUrl,
    INGESTION_DATABASE_URL: optionalUrl,
    SEARCH_DATABASE_URL: optionalUrl,
    OPEN_DATABASE_URL: optionalUrl,
    MCP_DATABASE_URL: optionalUrl,
    CONNECTOR_DATABASE_URL: optionalUrl,
    BILLING_DATABASE_URL: optionalUrl,
    DATA_DIR: z.string().min(1).default('./data'),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
    DATABASE_PREPARED_STATEMENTS: bool(true),
    KAFKA_BROKERS: z
      .string()
      .trim()
      .optional()
      .transform((v) => (v ? v.split(',').map((b) => b.trim()).filter(Boolean) : undefined)),
    KAFKA_CLIENT_ID: z.string().default('trove'),
    /** How long the embedded event log keeps events; older ones are deleted, read or not (as a Kafka topic's retention). */
    EVENT_RETENTION_HOURS: z.coerce.number().positive().max(87_600).default(168),
    INTERNAL_TOKEN_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    INTERNAL_TOKEN_TTL_SECONDS: z.coerce.number().int().min(5).max(3600).default(60),
    API_KEY_SALT: z.string().min(16, 'must be at least 16 characters').optional(),
    /** Portal tokens signed with HS256; or, instead, RS256 with JWT_PRIVATE_KEY (auth) and JWT_PUBLIC_KEY (gateway). */
    JWT_SECRET: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(32, 'must be at least 32 characters').optional()),
    JWT_PRIVATE_KEY: pem,
    JWT_PUBLIC_KEY: pem,
    JWT_TTL_SECONDS: z.coerce.number().int().min(60).max(7 * 24 * 3600).default(3600),
    /** Portal sign-in attempts allowed per email and per client address in each window; beyond, 429 with Retry-After. */
    PORTAL_LOGIN_LIMIT_PER_EMAIL: z.coerce.number().int().min(1).default(10),
    PORTAL_LOGIN_LIMIT_PER_ADDRESS: z.coerce.number().int().min(1).default(50),
    PORTAL_LOGIN_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
    KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
    JSON_BODY_LIMIT: z.string().regex(/^\d+(b|kb|mb)$/i, 'must look like 1mb, 512kb or 1048576b').default('2mb'),
    UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
    /** How long the gateway waits for an upload's answer after the upstream went quiet (uploads answer when stored). */
    UPLOAD_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(600_000),
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
    METRICS_ENABLED: bool(true),
    /** One log line per request answered (docs/observability.md, "Access log"). */
    ACCESS_LOG: bool(true),
    /** Per-tenant API and search calls per minute (429 past the plan's); off for benchmarks and installs that limit in front. */
    TENANT_RATE_LIMITS: bool(true),
    /** When set, webhook uploads must carry X-Webhook-Signature: sha256=<hex HMAC-SHA256 of the raw body>. */
    WEBHOOK_SECRET: z.string().min(1).optional(),
    UPLOAD_MAX_BYTES: z.coerce.number().int().min(1024).default(50 * 1024 * 1024),
    /** Records per call and per transaction when ingestion writes to records. */
    INGEST_CHUNK_SIZE: z.coerce.number().int().min(1).max(1000).default(1000),
    /** An upload still processing whose process has not renewed it for this long is failed (its process is gone). */
    UPLOAD_STALE_SECONDS: z.coerce.number().int().min(1).max(3600).default(120),
    /** How long a finished export's file is kept (from when it finished); then the job and its file are deleted. */
    EXPORT_TTL_HOURS: z.coerce.number().positive().max(8_760).default(24),
    /** An export still processing whose process has not renewed it for this long is resumed by another process. */
    EXPORT_STALE_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
    STREAM_BUFFER_LIMIT: z.coerce.number().int().min(1).default(10_000),
    STREAM_FLUSH_INTERVAL_MS: z.coerce.number().int().min(10).default(1_000),
    /** A tenant's records awaiting indexing above which uploads report pipeline_backpressure. */
    INDEXING_BACKLOG_THRESHOLD: z.coerce.number().int().min(0).default(50_000),
    /** How long POST /records and PATCH wait for search to acknowledge the write before answering pending. */
    INDEXING_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(3_000),
    /**
     * The older pipeline (docs/behaviour/older-vocabulary.md, "The older pipeline"; docs/configuration.md): jobs of at
     * most PIPELINE_BATCH_SIZE records, PIPELINE_WORKER_CONCURRENCY at once per search process, each given
     * PIPELINE_JOB_TIMEOUT seconds and PIPELINE_MAX_RETRIES retries (the first after PIPELINE_RETRY_DELAY_MS, each next
     * one twice as late) before its records are failed. After PIPELINE_BREAKER_FAILURES consecutive failed jobs no new
     * job starts for PIPELINE_BREAKER_PAUSE_SECONDS.
     */
    PIPELINE_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(20),
    PIPELINE_MAX_RETRIES: z.coerce.number().int().min(0).max(100).default(3),
    PIPELINE_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(10),
    PIPELINE_JOB_TIMEOUT: z.coerce.number().int().min(1).max(86_400).default(300),
    PIPELINE_RETRY_DELAY_MS: z.coerce.number().int().min(0).max(3_600_000).default(1_000),
    PIPELINE_BREAKER_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
    PIPELINE_BREAKER_PAUSE_SECONDS: z.coerce.number().min(0.1).max(86_400).default(60),
    /**
     * Fair shares between tenants (fair-scheduler.ts): how many searches and aggregations each search process runs at
     * once (one tenant at most one fewer), how many of a tenant's requests may wait, how many may wait in all, and how
     * long one may wait before it is refused.
     */
    SCHEDULER_SEARCH_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(3),
    /**
     * The gateway's fair shares of whole requests, per gateway process: searches (private, portal, aggregation, MCP,
     * and the Open API by client address), uploads and connector calls running at once; one tenant at most one fewer.
     */
    SCHEDULER_GATEWAY_SEARCH_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(2),
    SCHEDULER_GATEWAY_UPLOAD_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(2),
    SCHEDULER_GATEWAY_PULL_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(2),
    /** Pulls each connector process runs at once (asked for and scheduled), shared between tenants; one tenant at most one fewer. */
    SCHEDULER_PULL_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(2),
    /** Chunks each ingestion process writes to records at once, shared between tenants; one tenant at most one fewer. */
    SCHEDULER_INGEST_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(3),
    SCHEDULER_QUEUE_PER_TENANT: z.coerce.number().int().min(1).max(100_000).default(100),
    SCHEDULER_QUEUE_MAX: z.coerce.number().int().min(1).max(1_000_000).default(1000),
    SCHEDULER_MAX_WAIT_MS: z.coerce.number().int().min(1).max(600_000).default(8000),
    /** Selects the Elasticsearch engine; without it search uses PostgreSQL full-text search. */
    ELASTICSEARCH_URL: optionalUrl,
    ELASTICSEARCH_INDEX_PREFIX: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be lowercase letters, digits, _ or -').default('trove'),
    /** Selects the Redis cache and counters; without it they are in-process. */
    REDIS_URL: optionalUrl,
    /** Prefix of every Redis key of this system: systems sharing one Redis (staging beside production) keep apart. */
    REDIS_KEY_PREFIX: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must be 1-64 letters, digits, _ . : or -').default('trove:'),
    SEARCH_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
    /** On a PostgreSQL server, a search or aggregation statement is cancelled after this long (503 then). */
    SEARCH_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(5_000),
    /**
     * Proxies whose X-Forwarded-For the Open API believes when it limits per client IP (express "trust proxy"
     * syntax: loopback, linklocal, uniquelocal, addresses or CIDR ranges, comma-separated).
     */
    TRUSTED_PROXIES: z.string().trim().default('loopback'),
    /**
     * Browser origins (scheme, host and port, comma-separated) whose pages may call /api/v1 and /mcp; empty, none may.
     * The Open API answers every origin.
     */
    CORS_ORIGINS: z
      .string()
      .default('')
      .transform((v) => v.split(',').map((o) => o.trim()).filter(Boolean))
      .refine((origins) => origins.every((o) => /^https?:\/\/[^/\s?#*]+$/.test(o)), {
        message: 'must be comma-separated origins such as https://app.example.com (scheme, host and port; no path, no *)',
      }),
    OPEN_SEARCH_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(60),
    OPEN_LOOKUP_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(120),
    /** Recent searches /health/search summarises. */
    SEARCH_HEALTH_WINDOW: z.coerce.number().int().min(10).max(100_000).default(1_000),
    /** Payment provider (cloud mode only; billing refuses to start in cloud mode without the key and webhook secret). */
    STRIPE_SECRET_KEY: z.preprocess((v) => (v === '' ? undefined : v), z.string().optional()),
    STRIPE_WEBHOOK_SECRET: z.preprocess((v) => (v === '' ? undefined : v), z.string().optional()),
    /** Price ids of the paid plans: checkout sells them, and a subscription's plan is read from its price. */
    STRIPE_PRICE_PRO: z.preprocess((v) => (v === '' ? undefined : v), z.string().optional()),
    STRIPE_PRICE_SCALE: z.preprocess((v) => (v === '' ? undefined : v), z.string().optional()),
    /** The provider's API root; tests point it at a local stand-in. */
    STRIPE_API_URL: z.string().trim().url().default('https://api.stripe.com'),
    /** How often search overage is reported to the provider's meter. */
    BILLING_METER_INTERVAL_MS: z.coerce.number().int().min(100).max(86_400_000).default(300_000),
    /**
     * AES-256-GCM keys of connector credentials, comma-separated (64 hex characters or base64 each): the first encrypts,
     * every one decrypts (rotation). Required in production by a process that runs the connector service (the
     * launcher's requireConnectorKey); elsewhere a process without it makes a random key of its own.
     */
    CONNECTOR_ENCRYPTION_KEY: z.preprocess(
      (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
      z
        .string()
        .transform((v) => v.split(',').map((k) => k.trim()).filter(Boolean))
        .refine((keys) => keys.length > 0 && keys.every((k) => connectorKeyBytes(k) !== undefined), {
          message: 'must be comma-separated 256-bit keys, each 64 hex characters or base64 of 32 bytes',
        })
        .optional(),
    ),
    /** How long a connector pull waits to connect to the tenant's database, and for each statement or page. */
    CONNECTOR_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
    CONNECTOR_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(86_400_000).default(300_000),
  })
  .superRefine((c, ctx) => {
    if (c.ENV === 'production') {
      if (!c.INTERNAL_TOKEN_SECRET)
        ctx.addIssue({ code: 'custom', path: ['INTERNAL_TOKEN_SECRET'], message: 'is required when ENV=production' });
      if (!c.API_KEY_SALT) ctx.addIssue({ code: 'custom', path: ['API_KEY_SALT'], message: 'is required when ENV=production' });
      if (!c.JWT_SECRET && !c.JWT_PRIVATE_KEY && !c.JWT_PUBLIC_KEY)
        ctx.addIssue({ code: 'custom', path: ['JWT_SECRET'], message: 'is required when ENV=production (or JWT_PRIVATE_KEY/JWT_PUBLIC_KEY)' });
    }
    // One way to sign portal tokens: a secret and a key pair together would leave which one counts to chance.
    if (c.JWT_SECRET && (c.JWT_PRIVATE_KEY || c.JWT_PUBLIC_KEY))
      ctx.addIssue({ code: 'custom', path: ['JWT_SECRET'], message: 'must not be set together with JWT_PRIVATE_KEY or JWT_PUBLIC_KEY' });
    const privateOk = c.JWT_PRIVATE_KEY === undefined || isRsaKey(c.JWT_PRIVATE_KEY, createPrivateKey);
    const publicOk = c.JWT_PUBLIC_KEY === undefined || isRsaKey(c.JWT_PUBLIC_KEY, createPublicKey);
    if (!privateOk) ctx.addIssue({ code: 'custom', path: ['JWT_PRIVATE_KEY'], message: 'must be an RSA private key in PEM form' });
    if (!publicOk) ctx.addIssue({ code: 'custom', path: ['JWT_PUBLIC_KEY'], message: 'must be an RSA public key in PEM form' });
    if (c.JWT_PRIVATE_KEY && c.JWT_PUBLIC_KEY && privateOk && publicOk && spki(c.JWT_PRIVATE_KEY) !== spki(c.JWT_PUBLIC_KEY))
      ctx.addIssue({ code: 'custom', path: ['JWT_PUBLIC_KEY'], message: 'is not the public half of JWT_PRIVATE_KEY' });
  })
  .transform((c) => ({
    ...c,
    LOG_FORMAT: c.LOG_FORMAT ?? (c.ENV === 'development' ? 'pretty' : 'json'),
    INTERNAL_TOKEN_SECRET: c.INTERNAL_TOKEN_SECRET ?? processSecret(),
    API_KEY_SALT: c.API_KEY_SALT ?? DEV_API_KEY_SALT,
    JWT_SECRET: c.JWT_SECRET ?? (c.JWT_PRIVATE_KEY || c.JWT_PUBLIC_KEY ? undefined : processJwtSecret()),
    /** No JWT settings were given: this process signs portal tokens with a random secret no other process knows. */
    generatedJwtSecret: !c.JWT_SECRET && !c.JWT_PRIVATE_KEY && !c.JWT_PUBLIC_KEY,
    /** No INTERNAL_TOKEN_SECRET was set: this process made its own, which no other process knows. */
    generatedInternalTokenSecret: !c.INTERNAL_TOKEN_SECRET,
    /** API_KEY_SALT is the published development value, which production refuses and start-up warns about. */
    usingDevelopmentSalt: !c.API_KEY_SALT,
    CONNECTOR_ENCRYPTION_KEY: c.CONNECTOR_ENCRYPTION_KEY ?? [processConnectorKey()],
    /** No CONNECTOR_ENCRYPTION_KEY was set: connector credentials stored by this process die with it. */
    generatedConnectorEncryptionKey: !c.CONNECTOR_ENCRYPTION_KEY,
  }));

export type Config = z.output<typeof configSchema>;

/**
 * The secrets production refuses when they are placeholders (docs/configuration.md, "Secrets in production"): shorter
 * than their minimum, one of the published development values, or text a template ships (`change-me`). The minimum
 * applies where Trove makes up the value's strength; a key the payment provider issues, or one whose format fixes its
 * length, is only checked for placeholders. `how` says what to set instead.
 */
const PRODUCTION_SECRETS: Record<string, { minLength?: number; how: string }> = {
  INTERNAL_TOKEN_SECRET: { minLength: 32, how: 'set a random value of 32+ characters (openssl rand -hex 32)' },
  JWT_SECRET: { minLength: 32, how: 'set a random value of 32+ characters (openssl rand -hex 32)' },
  API_KEY_SALT: { minLength: 16, how: 'set a random value of 16+ characters (openssl rand -hex 32), the same in every process' },
  WEBHOOK_SECRET: { minLength: 16, how: 'set a random value of 16+ characters (openssl rand -hex 32) and sign with it' },
  CONNECTOR_ENCRYPTION_KEY: { how: 'set 256-bit keys, 64 hex characters each (openssl rand -hex 32)' },
  STRIPE_SECRET_KEY: { how: "set the secret key of the payment provider's account" },
  STRIPE_WEBHOOK_SECRET: { how: "set the signing secret of the payment provider's webhook endpoint" },
};

/** Values published with Trove for development; a production process never uses them. */
const PUBLISHED_DEVELOPMENT_VALUES = new Set([DEV_API_KEY_SALT, 'trove-development-internal-token-secret-not-for-production']);

/** Words templates put where a secret belongs, compared without case or separators ("Change_Me" is "change-me"). */
const PLACEHOLDER_MARKERS = ['change-me', 'change-it', 'change-this', 'replace-me', 'placeholder', 'not-for-production', 'your-secret', 'your-key', 'your-salt', 'example'];
/** Whole values that are no secret, compared the same way. */
const PLACEHOLDER_VALUES = ['secret', 'password', 'passwd', 'xxx', 'todo', 'test', 'dev', 'default'];

const bare = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The placeholder a value is or contains, as the marker is written; undefined for a value that looks chosen. */
function placeholderIn(value: string): string | undefined {
  const text = bare(value);
  return PLACEHOLDER_MARKERS.find((m) => text.includes(bare(m))) ?? PLACEHOLDER_VALUES.find((v) => text === v);
}

/** Database URL variables, whose password production checks for placeholders. */
const DATABASE_URL_VARIABLES = ['DATABASE_URL', 'AUTH_DATABASE_URL', 'RECORDS_DATABASE_URL', 'GATEWAY_DATABASE_URL', 'INGESTION_DATABASE_URL',
  'SEARCH_DATABASE_URL', 'OPEN_DATABASE_URL', 'MCP_DATABASE_URL', 'CONNECTOR_DATABASE_URL', 'BILLING_DATABASE_URL'];

/**
 * What is wrong with each secret of a production environment, one message per variable (none outside production):
 * the rule of PRODUCTION_SECRETS, and a database URL's password that is a placeholder. Values are never echoed.
 */
function productionSecretProblems(env: Record<string, string | undefined>): Map<string, string> {
  const problems = new Map<string, string>();
  if ((env.ENV ?? 'production') !== 'production') return problems;
  for (const [name, rule] of Object.entries(PRODUCTION_SECRETS)) {
    const value = env[name]?.trim();
    if (!value) continue;
    // A list of keys (CONNECTOR_ENCRYPTION_KEY rotates through several): each one counts.
    const parts = name === 'CONNECTOR_ENCRYPTION_KEY' ? value.split(',').map((k) => k.trim()) : [value];
    const marker = parts.map(placeholderIn).find((m) => m !== undefined);
    if (parts.some((p) => PUBLISHED_DEVELOPMENT_VALUES.has(p))) problems.set(name, `is the published development value, refused when ENV=production; ${rule.how}`);
    else if (marker) problems.set(name, `looks like a placeholder (it contains "${marker}"), refused when ENV=production; ${rule.how}`);
    else if (rule.minLength && value.length < rule.minLength)
      problems.set(name, `must be at least ${rule.minLength} characters when ENV=production; ${rule.how}`);
  }
  for (const name of DATABASE_URL_VARIABLES) {
    const password = passwordOf(env[name]);
    const marker = password === undefined ? undefined : placeholderIn(password);
    if (marker) problems.set(name, `its password looks like a placeholder (it contains "${marker}"), refused when ENV=production; set the database user's real password`);
  }
  return problems;
}

function passwordOf(url: string | undefined): string | undefined {
  if (!url?.trim()) return undefined;
  try {
    const password = new URL(url.trim()).password;
    return password ? decodeURIComponent(password) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads and validates the environment once; a bad value stops start-up with a message naming the variable, one line
 * per variable (a production secret's placeholder problem in place of what else its value breaks).
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const result = configSchema.safeParse(env);
  const secrets = productionSecretProblems(env);
  const issues = result.success ? [] : result.error.issues.map((i) => ({ name: i.path.join('.') || '(environment)', message: i.message }));
  const lines = [
    ...issues.filter((i) => !secrets.has(i.name)).map((i) => `  ${i.name}: ${i.message}`),
    ...[...secrets].map(([name, message]) => `  ${name}: ${message}`),
  ];
  if (lines.length > 0 || !result.success) throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  return result.data;
}

/** Port a service listens on: the gateway uses PORT, the others <NAME>_PORT or their default. */
export function servicePort(config: Config, name: ServiceName, env: Record<string, string | undefined> = process.env): number {
  if (name === 'gateway') return config.PORT;
  const explicit = (config as Record<string, unknown>)[`${name.toUpperCase()}_PORT`];
  if (typeof explicit === 'number') return explicit;
  const raw = env[`${name.toUpperCase()}_PORT`];
  const n = raw === undefined ? NaN : Number(raw);
  if (raw !== undefined && (!Number.isInteger(n) || n < 0 || n > 65535)) {
    throw new ConfigError(`Invalid configuration:\n  ${name.toUpperCase()}_PORT: must be an integer port`);
  }
  return raw === undefined ? DEFAULT_PORTS[name] : n;
}

/** Base URL of a service: <NAME>_URL, or the local port it listens on by default. */
export function serviceUrl(config: Config, name: ServiceName): string {
  const explicit = (config as Record<string, unknown>)[`${name.toUpperCase()}_URL`];
  if (typeof explicit === 'string') return explicit.replace(/\/$/, '');
  return `http://127.0.0.1:${servicePort(config, name)}`;
}

/** Database URL of a service: <NAME>_DATABASE_URL, else DATABASE_URL, else undefined (embedded PGlite). */
export function databaseUrl(config: Config, name: ServiceName): string | undefined {
  const explicit = (config as Record<string, unknown>)[`${name.toUpperCase()}_DATABASE_URL`];
  return typeof explicit === 'string' ? explicit : config.DATABASE_URL;
}
