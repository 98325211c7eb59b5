import pino from 'pino';
import { prettyFactory } from 'pino-pretty';

export type Logger = pino.Logger;

/** How log lines are written: one JSON object per line, or human-readable text (LOG_FORMAT, docs/configuration.md). */
export type LogFormat = 'json' | 'pretty';

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

export interface LoggerOptions {
  level?: string;
  name?: string;
  /** JSON unless said (tests, and every process but a development one: docs/configuration.md, LOG_FORMAT). */
  format?: LogFormat;
  /** Where lines go: stdout unless said (tests read what a logger wrote). */
  destination?: { write(line: string): unknown };
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const options: pino.LoggerOptions = {
    name: opts.name ?? 'trove',
    level: opts.level ?? 'info',
    redact: { paths: REDACTED_PATHS, censor: '***REDACTED***' },
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (opts.format === 'pretty') return pino(options, prettyStream(opts.destination ?? pino.destination({ dest: 1, sync: true })));
  return opts.destination ? pino(options, opts.destination) : pino(options);
}

/**
 * Human-readable lines: each JSON line pino writes (already redacted) is rewritten in place, synchronously, so lines
 * keep their order and the last ones before an exit are not lost. A transport would do this in a worker thread, whose
 * lines a process exiting at once can lose.
 */
function prettyStream(destination: { write(line: string): unknown }): pino.DestinationStream {
  const prettify = prettyFactory({ translateTime: 'SYS:HH:MM:ss.l', singleLine: true, ignore: 'pid,hostname' });
  return { write: (line: string) => void destination.write(prettify(line)) };
}
