import { randomUUID } from 'node:crypto';
import { CONNECTOR_CREATE, CONNECTOR_DELETE, CONNECTOR_LIST, CONNECTOR_PULL, type EndpointAnswer } from '@trove/contracts';
import { ERRORS, handle, identityOf, requireScope, serve, validationError, type Router } from '@trove/platform';
import type { CredentialCipher } from '../domain/cipher';
import { parseConnectorBody, REDACTED } from '../domain/connector-input';
import { hostsOf } from '../domain/literal-hosts';
import { checkLiteralHost, RefusedHostError } from '../net/address-guard';
import type { PullService } from '../pull-service';
import { deleteConnector, insertConnector, listConnectors } from '../store/connectors';
import type { ConnectorRow, Db } from '../store/schema';

/** A connector as every answer shows it: the settings never, the literal REDACTED in their place. */
function view(row: ConnectorRow): EndpointAnswer<typeof CONNECTOR_LIST>[number] {
  return {
    id: row.id,
    name: row.name,
    connector_type: row.connector_type,
    collection: row.collection,
    record_type: row.record_type,
    connection_config: REDACTED,
    query: row.query,
    name_column: row.name_column,
    schedule: row.schedule,
    batch_size: row.batch_size,
    created_at: row.created_at.toISOString(),
    last_pull_at: row.last_pull_at?.toISOString() ?? null,
    last_pull_status: row.last_pull_status,
  };
}

export interface ConnectorRouteDeps {
  db: Db;
  cipher: CredentialCipher;
  pulls: PullService;
  /** DEPLOYMENT_MODE=cloud: a literal private, loopback or metadata address is refused at once (422). */
  cloud: boolean;
}

/**
 * POST /connectors (201), GET /connectors (200, the tenant's connectors), POST /connectors/{id}/pull (200 with the
 * pull's result, completed or failed; 409 while another pull of it runs), DELETE /connectors/{id} (204, the stored
 * credentials go with it). Admin scope; every query is the caller's tenant's, so another tenant's connector is 404.
 */
export function connectorRoutes(router: Router, deps: ConnectorRouteDeps): void {
  const admin = requireScope('admin');
  const { db } = deps;

  // The body is read by parseConnectorBody, so that no 422 echoes connection settings.
  handle(router, CONNECTOR_CREATE, admin, async (req, res) => {
    const input = parseConnectorBody(req.body);
    if (deps.cloud) {
      try {
        for (const host of hostsOf(input.connector_type, input.connection_config)) checkLiteralHost(host);
      } catch (err) {
        if (!(err instanceof RefusedHostError)) throw err;
        throw validationError(['body', 'connection_config'], err.message, 'value_error', REDACTED);
      }
    }
    const identity = identityOf(req);
    const row = await insertConnector(db, {
      id: randomUUID(),
      tenant_id: identity.tenantId,
      name: input.name,
      connector_type: input.connector_type,
      collection: input.collection,
      record_type: input.record_type,
      connection_config: deps.cipher.encrypt(input.connection_config),
      query: input.query,
      name_column: input.name_column ?? null,
      schedule: input.schedule ?? null,
      batch_size: input.batch_size,
      plan: identity.plan ?? null,
    });
    res.status(201).json(view(row) satisfies EndpointAnswer<typeof CONNECTOR_CREATE>);
  });

  serve(router, CONNECTOR_LIST, [admin], async (_input, req) => (await listConnectors(db, identityOf(req).tenantId)).map(view));

  serve(router, CONNECTOR_PULL, [admin], async ({ params: { connector_id } }, req) => {
    const identity = identityOf(req);
    const result = await deps.pulls.pull(identity.tenantId, connector_id.toLowerCase(), identity, req.id);
    if (result === undefined) throw ERRORS.notFound('Connector not found');
    if (result === 'busy') throw ERRORS.conflict('A pull of this connector is already running; try again when it has finished');
    return result;
  });

  serve(router, CONNECTOR_DELETE, [admin], async ({ params: { connector_id } }, req) => {
    if (!(await deleteConnector(db, identityOf(req).tenantId, connector_id.toLowerCase()))) throw ERRORS.notFound('Connector not found');
    return undefined;
  });
}
