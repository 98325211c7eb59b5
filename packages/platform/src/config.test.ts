import { ConfigError, databaseUrl, loadConfig, servicePort, serviceUrl } from './config';

const SECRET = 's'.repeat(32);
const SALT = 'p'.repeat(16);
const production = { ENV: 'production', INTERNAL_TOKEN_SECRET: SECRET, API_KEY_SALT: SALT, JWT_SECRET: SECRET };

/** The ConfigError's message for an environment that must be refused. */
function refusal(env: Record<string, string | undefined>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('loadConfig accepted the environment');
}

describe('loadConfig', () => {
  it('fills in defaults for a development environment and says which secrets it made up or took from the source', () => {
    const config = loadConfig({ ENV: 'development' });

    expect(config).toEqual(
      expect.objectContaining({
        ENV: 'development',
        PORT: 8080,
        HOST: '0.0.0.0',
        DATA_DIR: './data',
        KAFKA_CLIENT_ID: 'trove',
        METRICS_ENABLED: true,
        JSON_BODY_LIMIT: '2mb',
        generatedInternalTokenSecret: true,
        usingDevelopmentSalt: true,
      }),
    );
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.KAFKA_BROKERS).toBeUndefined();
    expect(config.INTERNAL_TOKEN_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(config.API_KEY_SALT.length).toBeGreaterThanOrEqual(16);
  });

  it('treats a missing ENV as production', () => {
    expect(loadConfig({ INTERNAL_TOKEN_SECRET: SECRET, API_KEY_SALT: SALT, JWT_SECRET: SECRET }).ENV).toBe('production');
  });

  it('accepts production with both secrets, and then uses them', () => {
    const config = loadConfig(production);

    expect(config.INTERNAL_TOKEN_SECRET).toBe(SECRET);
    expect(config.API_KEY_SALT).toBe(SALT);
    expect(config.generatedInternalTokenSecret).toBe(false);
    expect(config.usingDevelopmentSalt).toBe(false);
  });

  it('makes a random internal token secret for a process given none, shared by its services and unknown elsewhere', () => {
    const first = loadConfig({ ENV: 'development' }).INTERNAL_TOKEN_SECRET;
    let otherProcess: string | undefined;
    jest.isolateModules(() => {
      const fresh = require('./config') as typeof import('./config');
      otherProcess = fresh.loadConfig({ ENV: 'development' }).INTERNAL_TOKEN_SECRET;
    });

    expect(loadConfig({ ENV: 'test' }).INTERNAL_TOKEN_SECRET).toBe(first);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(first).not.toBe('trove-development-internal-token-secret-not-for-production');
    expect(otherProcess).toMatch(/^[0-9a-f]{64}$/);
    expect(otherProcess).not.toBe(first);
  });

  it('keeps the development API key salt, so keys made in development survive a restart', () => {
    let otherProcess: string | undefined;
    jest.isolateModules(() => {
      otherProcess = (require('./config') as typeof import('./config')).loadConfig({ ENV: 'development' }).API_KEY_SALT;
    });

    expect(otherProcess).toBe(loadConfig({ ENV: 'development' }).API_KEY_SALT);
  });

  it('refuses production without INTERNAL_TOKEN_SECRET and API_KEY_SALT, naming both', () => {
    const message = refusal({ ENV: 'production' });

    expect(message).toMatch(/INTERNAL_TOKEN_SECRET: is required when ENV=production/);
    expect(message).toMatch(/API_KEY_SALT: is required when ENV=production/);
  });

  it('refuses production with only one secret, naming the missing one only', () => {
    const message = refusal({ ENV: 'production', INTERNAL_TOKEN_SECRET: SECRET, JWT_SECRET: SECRET });

    expect(message).toContain('API_KEY_SALT');
    expect(message).not.toContain('INTERNAL_TOKEN_SECRET');
  });

  it('refuses secrets that are too short, naming the variable and the minimum', () => {
    const message = refusal({ ENV: 'development', INTERNAL_TOKEN_SECRET: 'short', API_KEY_SALT: 'tiny' });

    expect(message).toMatch(/INTERNAL_TOKEN_SECRET: must be at least 32 characters/);
    expect(message).toMatch(/API_KEY_SALT: must be at least 16 characters/);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['RECORDS_PORT', '-1'],
    ['ENV', 'staging'],
    ['LOG_LEVEL', 'loud'],
    ['DATABASE_URL', 'not a url'],
    ['DATABASE_POOL_SIZE', '0'],
    ['INTERNAL_TOKEN_TTL_SECONDS', '1'],
    ['JSON_BODY_LIMIT', 'lots'],
    ['METRICS_ENABLED', 'maybe'],
    ['UPSTREAM_TIMEOUT_MS', 'soon'],
  ])('refuses a bad %s (%p), naming the variable', (name, value) => {
    const message = refusal({ ENV: 'development', [name]: value });

    expect(message).toMatch(new RegExp(`^\\s+${name}: `, 'm'));
  });

  it('names every bad variable at once', () => {
    const message = refusal({ ENV: 'development', PORT: 'x', LOG_LEVEL: 'loud', DATABASE_POOL_SIZE: '0' });

    expect(message).toContain('PORT');
    expect(message).toContain('LOG_LEVEL');
    expect(message).toContain('DATABASE_POOL_SIZE');
  });

  it('reads numbers, lists and flags from their text', () => {
    const config = loadConfig({
      ENV: 'development',
      PORT: '9000',
      DATABASE_POOL_SIZE: '25',
      KAFKA_BROKERS: ' kafka-1:9092, kafka-2:9092 ,',
      METRICS_ENABLED: 'no',
      DATABASE_URL: 'postgres://trove:secret@db:5432/trove',
    });

    expect(config.PORT).toBe(9000);
    expect(config.DATABASE_POOL_SIZE).toBe(25);
    expect(config.KAFKA_BROKERS).toEqual(['kafka-1:9092', 'kafka-2:9092']);
    expect(config.METRICS_ENABLED).toBe(false);
    expect(config.DATABASE_URL).toBe('postgres://trove:secret@db:5432/trove');
  });

  it('reads the browser origins allowed to call /api/v1, none by default, and refuses what is no origin', () => {
    expect(loadConfig({ ENV: 'development' }).CORS_ORIGINS).toEqual([]);
    expect(loadConfig({ ENV: 'development', CORS_ORIGINS: ' https://app.example.com, http://localhost:5173 ,' }).CORS_ORIGINS).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
    for (const bad of ['*', 'app.example.com', 'https://app.example.com/path']) {
      expect(refusal({ ENV: 'development', CORS_ORIGINS: bad })).toContain('CORS_ORIGINS');
    }
  });

  it('writes logs as text in development and as JSON lines elsewhere, unless LOG_FORMAT says', () => {
    expect(loadConfig({ ENV: 'development' }).LOG_FORMAT).toBe('pretty');
    expect(loadConfig(production).LOG_FORMAT).toBe('json');
    expect(loadConfig({ ENV: 'test' }).LOG_FORMAT).toBe('json');
    expect(loadConfig({ ENV: 'development', LOG_FORMAT: 'json' }).LOG_FORMAT).toBe('json');
    expect(loadConfig({ ...production, LOG_FORMAT: 'pretty' }).LOG_FORMAT).toBe('pretty');
    expect(loadConfig({ ENV: 'development', LOG_FORMAT: '' }).LOG_FORMAT).toBe('pretty');
    expect(refusal({ ENV: 'development', LOG_FORMAT: 'xml' })).toMatch(/^\s+LOG_FORMAT: /m);
  });

  it('treats empty URLs and an empty broker list as not set', () => {
    const config = loadConfig({ ENV: 'development', DATABASE_URL: '', AUTH_URL: '  ', KAFKA_BROKERS: '' });

    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.AUTH_URL).toBeUndefined();
    expect(config.KAFKA_BROKERS).toBeUndefined();
  });
});

describe('service addresses', () => {
  const config = loadConfig({
    ENV: 'development',
    PORT: '9000',
    RECORDS_PORT: '9002',
    AUTH_URL: 'http://auth.internal:8081/',
    DATABASE_URL: 'postgres://shared@db/trove',
    RECORDS_DATABASE_URL: 'postgres://records@db/records',
  });

  it('gives the gateway PORT and every other service its own port or its default', () => {
    expect(servicePort(config, 'gateway', {})).toBe(9000);
    expect(servicePort(config, 'records', {})).toBe(9002);
    expect(servicePort(config, 'billing', {})).toBe(8086);
    expect(servicePort(loadConfig({ ENV: 'development', BILLING_PORT: '9104' }), 'billing', {})).toBe(9104);
    // A service the configuration does not name yet reads its port from the environment.
    expect(servicePort(config, 'connector', {})).toBe(8087);
    expect(servicePort(config, 'connector', { CONNECTOR_PORT: '9107' })).toBe(9107);
  });

  it('refuses a service port that is not a port, naming the variable', () => {
    expect(() => loadConfig({ ENV: 'development', BILLING_PORT: 'abc' })).toThrow(/BILLING_PORT/);
    expect(() => servicePort(config, 'connector', { CONNECTOR_PORT: 'abc' })).toThrow(/CONNECTOR_PORT/);
  });

  it('uses an explicit service URL without its trailing slash, else the local port', () => {
    expect(serviceUrl(config, 'auth')).toBe('http://auth.internal:8081');
    expect(serviceUrl(config, 'records')).toBe('http://127.0.0.1:9002');
  });

  it("prefers a service's own database URL over the shared one", () => {
    expect(databaseUrl(config, 'records')).toBe('postgres://records@db/records');
    expect(databaseUrl(config, 'auth')).toBe('postgres://shared@db/trove');
    expect(databaseUrl(loadConfig({ ENV: 'development' }), 'auth')).toBeUndefined();
  });
});

describe('secrets in production', () => {
  const lines = (message: string) => message.split('\n').slice(1);

  it.each([
    ['INTERNAL_TOKEN_SECRET', 'change-me-to-32-or-more-random-characters', 'change-me'],
    ['JWT_SECRET', 'CHANGE_ME_CHANGE_ME_CHANGE_ME_CHANGE_ME', 'change-me'],
    ['API_KEY_SALT', 'replace-me-with-a-salt', 'replace-me'],
    ['WEBHOOK_SECRET', 'your-secret-goes-here', 'your-secret'],
    ['STRIPE_SECRET_KEY', 'sk_live_placeholder', 'placeholder'],
    ['STRIPE_WEBHOOK_SECRET', 'changeme', 'change-me'],
    ['CONNECTOR_ENCRYPTION_KEY', 'change-me-to-64-hex-characters', 'change-me'],
  ])('refuses a placeholder %s in one line naming it and the placeholder, never the value', (name, value, marker) => {
    const message = refusal({ ...production, [name]: value });

    expect(lines(message)).toHaveLength(1);
    expect(lines(message)[0]).toMatch(new RegExp(`^ {2}${name}: looks like a placeholder \\(it contains "${marker}"\\), refused when ENV=production; set `));
    expect(message).not.toContain(value);
  });

  it('refuses the published development API key salt, naming the variable', () => {
    const message = refusal({ ...production, API_KEY_SALT: 'trove-development-api-key-salt-not-for-production' });

    expect(lines(message)).toHaveLength(1);
    expect(message).toContain('  API_KEY_SALT: is the published development value, refused when ENV=production; set a random value');
  });

  it('refuses a webhook secret shorter than 16 characters, and one of the keys of a rotation list that is a placeholder', () => {
    const message = refusal({ ...production, WEBHOOK_SECRET: 'short', CONNECTOR_ENCRYPTION_KEY: `${'a'.repeat(64)},change-me` });

    expect(message).toContain('  WEBHOOK_SECRET: must be at least 16 characters when ENV=production');
    expect(message).toContain('  CONNECTOR_ENCRYPTION_KEY: looks like a placeholder');
    expect(lines(message)).toHaveLength(2);
  });

  it("refuses a database URL whose password is a placeholder, naming the variable and not the URL", () => {
    const url = 'postgres://trove:change-me@db:5432/trove_auth';
    const message = refusal({ ...production, AUTH_DATABASE_URL: url });

    expect(lines(message)).toEqual(['  AUTH_DATABASE_URL: its password looks like a placeholder (it contains "change-me"), refused when ENV=production; set the database user\'s real password']);
    expect(message).not.toContain(url);
  });

  it('names each bad variable once, with the other problems of the environment', () => {
    const message = refusal({ ...production, INTERNAL_TOKEN_SECRET: 'change-me', JWT_SECRET: 'change-me-to-32-or-more-random-characters-too', PORT: 'x' });

    expect(lines(message)).toHaveLength(3);
    expect(lines(message).filter((l) => l.startsWith('  INTERNAL_TOKEN_SECRET:'))).toEqual([expect.stringContaining('placeholder')]);
    expect(message).toMatch(/^ {2}JWT_SECRET: looks like a placeholder/m);
    expect(message).toMatch(/^ {2}PORT: /m);
  });

  it('accepts chosen secrets, and placeholders outside production', () => {
    expect(() => loadConfig({ ...production, WEBHOOK_SECRET: 'w'.repeat(16), DATABASE_URL: 'postgres://trove:trove@db/trove' })).not.toThrow();
    const placeholders = { INTERNAL_TOKEN_SECRET: 'change-me-to-32-or-more-random-characters', API_KEY_SALT: 'change-me-16-plus-chars', WEBHOOK_SECRET: 'x' };
    expect(() => loadConfig({ ENV: 'development', ...placeholders })).not.toThrow();
    expect(() => loadConfig({ ENV: 'test', ...placeholders })).not.toThrow();
  });

  it('treats a missing ENV as production here too', () => {
    expect(refusal({ INTERNAL_TOKEN_SECRET: SECRET, API_KEY_SALT: SALT, JWT_SECRET: 'change-me-to-32-or-more-random-characters' })).toContain('JWT_SECRET: looks like a placeholder');
  });
});
