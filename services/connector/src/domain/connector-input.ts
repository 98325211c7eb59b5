import { Cron } from 'croner';
import { z } from 'zod';
import { collectionName, recordType } from '@trove/contracts';
import { HttpError, parseInput, type ValidationIssue } from '@trove/platform';
import { CONNECTOR_TYPES, type ConnectorType } from '../store/schema';

/** What responses and 422 answers show in place of connection settings. */
export const REDACTED = '***REDACTED***';

export const BATCH_SIZE_DEFAULT = 5000;
export const BATCH_SIZE_MAX = 50_000;
export const QUERY_MAX = 100_000;

const text = (max: number) => z.string().trim().min(1).max(max);
const uriWith = (schemes: RegExp, expected: string) => text(4096).regex(schemes, `must be a URI starting with ${expected}`);

/** connection_config by connector type (spec, Connectors); an unknown key is 422, as everywhere in a body. */
export const CONNECTION_CONFIGS = {
  postgresql: z.strictObject({ dsn: uriWith(/^postgres(ql)?:\/\/./i, 'postgresql:// or postgres://') }),
  mysql: z.strictObject({
    host: text(255),
    port: z.number().int().min(1).max(65535).default(3306),
    user: text(255),
    password: z.string().max(1024),
    database: text(255),
  }),
  mongodb: z.strictObject({ uri: uriWith(/^mongodb(\+srv)?:\/\/./i, 'mongodb:// or mongodb+srv://'), database: text(255), collection: text(255) }),
  neo4j: z.strictObject({
    uri: uriWith(/^(neo4j|bolt)(\+s|\+ssc)?:\/\/./i, 'neo4j://, bolt:// (or their +s, +ssc forms)'),
    user: text(255),
    password: z.string().max(1024),
    database: text(255).optional(),
  }),
} satisfies Record<ConnectorType, z.ZodType>;

export type ConnectionConfig = z.output<(typeof CONNECTION_CONFIGS)[ConnectorType]>;

function validCron(expression: string): boolean {
  try {
    new Cron(expression, { paused: true }).stop();
    return true;
  } catch {
    return false;
  }
}

function mongoFilter(query: string): boolean {
  try {
    const value: unknown = JSON.parse(query);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}

const common = {
  name: text(200),
  collection: collectionName,
  record_type: recordType,
  query: text(QUERY_MAX),
  name_column: text(200).optional(),
  schedule: text(200).refine(validCron, 'Invalid cron expression').optional(),
  batch_size: z.number().int().min(1).max(BATCH_SIZE_MAX).default(BATCH_SIZE_DEFAULT),
};

const anyType = z.strictObject({ ...common, connector_type: z.enum(CONNECTOR_TYPES), connection_config: z.record(z.string(), z.unknown()) });

function bodyOf(type: ConnectorType) {
  const schema = z.strictObject({ ...common, connector_type: z.literal(type), connection_config: CONNECTION_CONFIGS[type] });
  return type === 'mongodb' ? schema.refine((b) => mongoFilter(b.query), { path: ['query'], message: 'must be a JSON object (a MongoDB filter)' }) : schema;
}

export interface ConnectorInput {
  name: string;
  connector_type: ConnectorType;
  collection: string;
  record_type: string;
  connection_config: ConnectionConfig;
  query: string;
  name_column?: string;
  schedule?: string;
  batch_size: number;
}

function redactedInput(input: unknown): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input) || !('connection_config' in input)) return input;
  return { ...input, connection_config: REDACTED };
}

/**
 * The body of POST /connectors, or the 422 the platform answers. No issue echoes connection settings: an issue about
 * them shows REDACTED as its input, and an issue about the body whole shows it with connection_config redacted.
 */
export function parseConnectorBody(body: unknown): ConnectorInput {
  const type = z.object({ connector_type: z.enum(CONNECTOR_TYPES) }).safeParse(body);
  try {
    return parseInput(type.success ? bodyOf(type.data.connector_type) : anyType, body, 'body') as ConnectorInput;
  } catch (err) {
    if (!(err instanceof HttpError) || typeof err.detail === 'string') throw err;
    const issues: ValidationIssue[] = err.detail.map((i) => ({
      ...i,
      input: i.loc[1] === 'connection_config' ? REDACTED : redactedInput(i.input),
    }));
    throw new HttpError(err.status, err.code, issues, err.headers);
  }
}
