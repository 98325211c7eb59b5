import { z } from 'zod';
import { collectionName, recordType } from './records';

/** The sources a connector pulls from. */
export const CONNECTOR_TYPES = ['postgresql', 'mysql', 'mongodb', 'neo4j'] as const;
export type ConnectorType = (typeof CONNECTOR_TYPES)[number];

/** What answers and 422 answers show in place of a connector's connection settings. */
export const CONNECTOR_REDACTED = '***REDACTED***';

export const CONNECTOR_BATCH_SIZE_DEFAULT = 5000;
export const CONNECTOR_BATCH_SIZE_MAX = 50_000;
export const CONNECTOR_QUERY_MAX = 100_000;

const text = (max: number) => z.string().trim().min(1).max(max);
const uriWith = (schemes: RegExp, expected: string) => text(4096).regex(schemes, `must be a URI starting with ${expected}`);

/** connection_config by connector type (docs/connectors.md); an unknown key is 422, as everywhere in a body. */
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

/**
 * A connector's schedule: a cron expression (five fields, or six with seconds), pulled on in UTC. Contracts checks its
 * text only; the connector service, which reads it with its cron library, adds the check that it is a valid expression.
 */
export const connectorSchedule = text(200);

function mongoFilter(query: string): boolean {
  try {
    const value: unknown = JSON.parse(query);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}

const connectorFields = {
  name: text(200),
  collection: collectionName,
  record_type: recordType,
  /** The source's query (SQL, a MongoDB filter as JSON, Cypher); `:last_pull` stands for the last successful pull's start. */
  query: text(CONNECTOR_QUERY_MAX),
  /** The row field holding each record's name; `name` when none is given. */
  name_column: text(200).optional(),
  schedule: connectorSchedule.optional(),
  batch_size: z.number().int().min(1).max(CONNECTOR_BATCH_SIZE_MAX).default(CONNECTOR_BATCH_SIZE_DEFAULT),
};

function connectorBodyOf<T extends ConnectorType>(type: T) {
  return z.strictObject({ ...connectorFields, connector_type: z.literal(type), connection_config: CONNECTION_CONFIGS[type] });
}

/** The body of POST /connectors for each connector type. */
export const CONNECTOR_BODIES = {
  postgresql: connectorBodyOf('postgresql'),
  mysql: connectorBodyOf('mysql'),
  mongodb: connectorBodyOf('mongodb').refine((b) => mongoFilter(b.query), { path: ['query'], message: 'must be a JSON object (a MongoDB filter)' }),
  neo4j: connectorBodyOf('neo4j'),
} satisfies Record<ConnectorType, z.ZodType>;

/**
 * The body of POST /connectors as its connector service reads one whose connector_type is none of CONNECTOR_TYPES:
 * every field checked as for any type, so that the 422 names each problem and not only the type.
 */
export const connectorBodyOfAnyType = z.strictObject({
  ...connectorFields,
  connector_type: z.enum(CONNECTOR_TYPES),
  connection_config: z.record(z.string(), z.unknown()),
});

/** The body of POST /connectors: by its connector_type, the connection settings that type takes. */
export const connectorCreateBody = z.discriminatedUnion('connector_type', [
  CONNECTOR_BODIES.postgresql,
  CONNECTOR_BODIES.mysql,
  CONNECTOR_BODIES.mongodb,
  CONNECTOR_BODIES.neo4j,
]);
export type ConnectorCreateBody = z.output<typeof connectorCreateBody>;
