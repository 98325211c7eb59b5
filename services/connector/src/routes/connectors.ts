import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ERRORS, fields, identityOf, parseInput, requireScope, validationError, type Router } from '@trove/platform';
import type { CredentialCipher } from '../domain/cipher';
import { parseConnectorBody, REDACTED } from '../domain/connector-input';
import { hostsOf } from '../domain/literal-hosts';
import { checkLiteralHost, RefusedHostError } from '../net/address-guard';
import type { PullService } from '../pull-service';
import { deleteConnector, insertConnector, listConnectors } from '../store/connectors';
import type { ConnectorRow, Db } from '../store/schema';

const idParams = z.object({ connector_id: fields.uuid });

/** A connector as every answer shows it: the settings never, the literal REDACTED in their place. */
function view(row: ConnectorRow) {
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

  router.post('/connectors', admin, async (req, res) => {
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
    res.status(201).json(view(row));
  });

  router.get('/connectors', admin, async (req, res) => {
    res.json((await listConnectors(db, identityOf(req).tenantId)).map(view));
  });

  router.post('/connectors/:connector_id/pull', admin, async (req, res) => {
    const { connector_id } = parseInput(idParams, req.params, 'path');
    const identity = identityOf(req);
    const result = await deps.pulls.pull(identity.tenantId, connector_id.toLowerCase(), identity, req.id);
    if (result === undefined) throw ERRORS.notFound('Connector not found');
    if (result === 'busy') throw ERRORS.conflict('A pull of this connector is already running; try again when it has finished');
    res.json(result);
  });

  router.delete('/connectors/:connector_id', admin, async (req, res) => {
    const { connector_id } = parseInput(idParams, req.params, 'path');
    if (!(await deleteConnector(db, identityOf(req).tenantId, connector_id.toLowerCase()))) throw ERRORS.notFound('Connector not found');
    res.status(204).end();
  });
}
