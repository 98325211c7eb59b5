import pino from 'pino';

export type Logger = pino.Logger;

/** Paths never written to logs: credentials, key values and connector secrets. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-trove-identity"]',
  'req.headers["x-webhook-signature"]',
  'headers.authorization',
  'key',
  '*.key',
  'password',
  '*.password',
  'connection_config',
  '*.connection_config',
  'api_key',
  '*.api_key',
];

export function createLogger(opts: { level?: string; name?: string } = {}): Logger {
  return pino({
    name: opts.name ?? 'trove',
    level: opts.level ?? 'info',
    redact: { paths: REDACTED_PATHS, censor: '***REDACTED***' },
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
