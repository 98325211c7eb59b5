import { ConfigError, loadConfig } from '@trove/platform';
import { listensOnItsOwnPort } from '@trove/runtime';
import { MODULES, requireConnectorKey, requireSharedSecret, resolveTargets } from './modules';

const SECRET = 's'.repeat(32);

describe('which services of a process open a port', () => {
  const listening = (target: string) => {
    const names = resolveTargets(target).map((m) => m.name);
    return names.filter((name) => listensOnItsOwnPort(name, names)).sort();
  };

  it('opens only the gateway when the process runs every service: the others answer it in process', () => {
    expect(listening('all')).toEqual(['gateway']);
    expect(listening(MODULES.map((m) => m.name).join(','))).toEqual(['gateway']);
  });

  it('opens every service of a process running only some, since other processes call them', () => {
    expect(listening('records')).toEqual(['records']);
    expect(listening('auth,gateway')).toEqual(['auth', 'gateway']);
    expect(listening(MODULES.filter((m) => m.name !== 'mcp').map((m) => m.name).join(','))).toEqual(MODULES.filter((m) => m.name !== 'mcp').map((m) => m.name).sort());
  });
});

describe('the internal token secret a process needs', () => {
  it('lets a process running every service make up its own', () => {
    expect(() => requireSharedSecret(loadConfig({ ENV: 'development' }), resolveTargets('all'))).not.toThrow();
  });

  it('refuses a process running only some services without one, in development too, naming the variable', () => {
    const refuse = () => requireSharedSecret(loadConfig({ ENV: 'development' }), resolveTargets('records,search'));

    expect(refuse).toThrow(ConfigError);
    expect(refuse).toThrow(/INTERNAL_TOKEN_SECRET: is required when a process runs only some services \(records, search\)/);
  });

  it('refuses a process running auth or the gateway but not every service without JWT settings, naming the variable', () => {
    const env = { ENV: 'development', INTERNAL_TOKEN_SECRET: SECRET };

    expect(() => requireSharedSecret(loadConfig(env), resolveTargets('gateway'))).toThrow(/JWT_SECRET: is required when a process runs only some services \(gateway\)/);
    expect(() => requireSharedSecret(loadConfig(env), resolveTargets('auth'))).toThrow(/JWT_SECRET/);
    expect(() => requireSharedSecret(loadConfig(env), resolveTargets('records'))).not.toThrow();
    expect(() => requireSharedSecret(loadConfig({ ...env, JWT_SECRET: SECRET }), resolveTargets('auth'))).not.toThrow();
  });

  it('accepts a process running only some services once the secret is set', () => {
    expect(() => requireSharedSecret(loadConfig({ ENV: 'development', INTERNAL_TOKEN_SECRET: SECRET }), resolveTargets('records'))).not.toThrow();
  });
});

describe('the connector encryption key a process needs', () => {
  const production = { ENV: 'production', INTERNAL_TOKEN_SECRET: SECRET, API_KEY_SALT: 'p'.repeat(16), JWT_SECRET: SECRET };

  it('refuses a production process running the connector service without CONNECTOR_ENCRYPTION_KEY, naming it', () => {
    expect(() => requireConnectorKey(loadConfig(production), resolveTargets('all'))).toThrow(ConfigError);
    expect(() => requireConnectorKey(loadConfig(production), resolveTargets('connector'))).toThrow(/CONNECTOR_ENCRYPTION_KEY: is required when ENV=production/);
  });

  it('lets through a production process with the key, one not running the connector service, and development', () => {
    const key = { CONNECTOR_ENCRYPTION_KEY: 'f'.repeat(64) };
    expect(() => requireConnectorKey(loadConfig({ ...production, ...key }), resolveTargets('all'))).not.toThrow();
    expect(() => requireConnectorKey(loadConfig(production), resolveTargets('records,gateway'))).not.toThrow();
    expect(() => requireConnectorKey(loadConfig({ ENV: 'development' }), resolveTargets('all'))).not.toThrow();
  });

  it('refuses a key that is not 256 bits', () => {
    expect(() => loadConfig({ ENV: 'development', CONNECTOR_ENCRYPTION_KEY: 'short' })).toThrow(/CONNECTOR_ENCRYPTION_KEY/);
  });
});
