import { Cron } from 'croner';
import { z } from 'zod';
import {
  CONNECTOR_BODIES,
  CONNECTOR_REDACTED,
  CONNECTOR_TYPES,
  connectorBodyOfAnyType,
  connectorSchedule,
  type ConnectorCreateBody,
  type ConnectorType,
} from '@trove/contracts';
import { HttpError, parseInput, type ValidationIssue } from '@trove/platform';

export type { ConnectionConfig } from '@trove/contracts';

/** What responses and 422 answers show in place of connection settings. */
export const REDACTED = CONNECTOR_REDACTED;

function validCron(expression: string): boolean {
  try {
    new Cron(expression, { paused: true }).stop();
    return true;
  } catch {
    return false;
  }
}

/** The declared schedule, and that croner reads it (contracts does not depend on croner). */
const schedule = connectorSchedule.refine(validCron, 'Invalid cron expression').optional();

/** The declared body of each connector type (CONNECTOR_CREATE's), with the schedule's cron check. */
const BODIES: Record<ConnectorType, z.ZodType> = {
  postgresql: CONNECTOR_BODIES.postgresql.safeExtend({ schedule }),
  mysql: CONNECTOR_BODIES.mysql.safeExtend({ schedule }),
  mongodb: CONNECTOR_BODIES.mongodb.safeExtend({ schedule }),
  neo4j: CONNECTOR_BODIES.neo4j.safeExtend({ schedule }),
};
const anyType = connectorBodyOfAnyType.safeExtend({ schedule });

/** The body of POST /connectors, parsed: CONNECTOR_CREATE's. */
export type ConnectorInput = ConnectorCreateBody;

function redactedInput(input: unknown): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input) || !('connection_config' in input)) return input;
  return { ...input, connection_config: REDACTED };
}

/**
 * The body of POST /connectors (CONNECTOR_CREATE.body: by its connector_type, that type's body; one of no known type
 * is checked field by field as any type's), or the 422 the platform answers. No issue echoes connection settings: an
 * issue about them shows REDACTED as its input, and an issue about the body whole shows it with connection_config
 * redacted.
 */
export function parseConnectorBody(body: unknown): ConnectorInput {
  const type = z.object({ connector_type: z.enum(CONNECTOR_TYPES) }).safeParse(body);
  try {
    return parseInput(type.success ? BODIES[type.data.connector_type] : anyType, body, 'body') as ConnectorInput;
  } catch (err) {
    if (!(err instanceof HttpError) || typeof err.detail === 'string') throw err;
    const issues: ValidationIssue[] = err.detail.map((i) => ({
      ...i,
      input: i.loc[1] === 'connection_config' ? REDACTED : redactedInput(i.input),
    }));
    throw new HttpError(err.status, err.code, issues, err.headers);
  }
}
