import { randomUUID } from 'node:crypto';
import { INGESTION_CONNECTOR_UPLOAD, type UploadResult } from '@trove/contracts';
import type { FairScheduler, Identity, Logger, ServiceClient } from '@trove/platform';
import type { CredentialCipher } from './domain/cipher';
import type { ConnectionConfig } from './domain/connector-input';
import { NEVER_PULLED } from './domain/last-pull';
import { scrub, secretsOf } from './domain/scrub';
import { rowToJson } from './domain/values';
import type { OpenSource, Row } from './sources';
import type { ConnectorRow, Db } from './store/schema';
import { finishPull, renewPullLease, takePullLease } from './store/connectors';

/** The answer of POST /connectors/{id}/pull. */
export interface PullResult {
  status: 'completed' | 'failed';
  records_pulled: number;
  records_uploaded: number;
  duplicates_skipped: number;
  /** Rows ingestion turned into dead letters (no name_column value, a field it refuses): GET /uploads/{upload_id}/errors. */
  records_rejected: number;
  duration_seconds: number;
  /** The upload the pulled rows became; absent when no row was read. */
  upload_id?: string;
  /** Why the pull failed, free of credentials. */
  error?: string;
}

export interface PullServiceDeps {
  db: Db;
  cipher: CredentialCipher;
  open: OpenSource;
  /** Ingestion, which takes each pull's rows as one streamed upload. */
  ingestion: ServiceClient;
  /** The longest a pull's upload may take from its first byte to ingestion's answer. */
  uploadTimeoutMs: number;
  logger: Logger;
  cloud: boolean;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  /** How long a pull's lease lasts without renewal (renewed every third of it); a dead process's lapses after this. */
  leaseMs?: number;
  /** Shares this process's pulls (asked for and scheduled alike) between tenants; without it they run as they come. */
  shares?: Pick<FairScheduler, 'run'>;
}

const DEFAULT_LEASE_MS = 60_000;

function messageOf(err: unknown): string {
  if (err instanceof AggregateError && !err.message) return err.errors.map(messageOf).join('; ');
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

/**
 * Runs pulls: takes the connector's lease (one pull per connector across every process on the database), reads the
 * source page by page and streams the pages to ingestion as one upload, then records the outcome. Any failure of the
 * source, of the credentials or of ingestion is a `failed` result with a credential-free message, never a throw.
 * A page reaches ingestion whole or not at all: it is written to the upload only once fully read, and a source that
 * fails mid-pull ends the upload after the last whole page (those rows are stored; :last_pull does not move, so the
 * next pull reads them again and dedup skips them).
 */
export class PullService {
  /** This process's name on the leases it takes. */
  private readonly owner = randomUUID();
  private readonly leaseMs: number;

  constructor(private readonly deps: PullServiceDeps) {
    this.leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
  }

  /**
   * A pull of the tenant's connector: its result, 'busy' while another pull of it runs, undefined when unknown. The
   * connector's lease is taken at once (so a second pull of it is busy), and the pull runs once it is the tenant's
   * turn; one that waited too long for it is refused (SchedulerRefusal, 503) and leaves the lease to lapse.
   */
  async pull(tenantId: string, id: string, identity: Identity, requestId?: string): Promise<PullResult | 'busy' | undefined> {
    const row = await takePullLease(this.deps.db, tenantId, id, this.owner, this.leaseMs, identity.plan);
    if (row === 'busy' || row === undefined) return row;
    const startedAt = new Date();
    const renewal = setInterval(() => {
      renewPullLease(this.deps.db, id, this.owner, this.leaseMs).catch((err: unknown) =>
        this.deps.logger.warn({ connectorId: id, reason: messageOf(err) }, 'could not renew a pull lease'),
      );
    }, this.leaseMs / 3);
    renewal.unref();
    let result: PullResult;
    try {
      const shares = this.deps.shares;
      result = await (shares ? shares.run(tenantId, () => this.run(row, identity, requestId)) : this.run(row, identity, requestId));
    } finally {
      clearInterval(renewal);
    }
    await finishPull(this.deps.db, id, this.owner, { status: result.status, startedAt });
    const log = { connectorId: id, tenantId, ...result };
    if (result.status === 'failed') this.deps.logger.warn(log, 'connector pull failed');
    else this.deps.logger.info(log, 'connector pull completed');
    return result;
  }

  private async run(row: ConnectorRow, identity: Identity, requestId?: string): Promise<PullResult> {
    const t0 = performance.now();
    let secrets: string[] = [];
    let pulled = 0;
    const answer = (outcome: UploadResult | undefined, error?: unknown): PullResult => ({
      status: error === undefined ? 'completed' : 'failed',
      records_pulled: pulled,
      records_uploaded: outcome?.summary.accepted ?? 0,
      duplicates_skipped: outcome?.summary.dedup_skipped ?? 0,
      records_rejected: outcome?.summary.rejected ?? 0,
      duration_seconds: Math.round(performance.now() - t0) / 1000,
      ...(outcome ? { upload_id: outcome.upload_id } : {}),
      ...(error === undefined ? {} : { error: scrub(messageOf(error), secrets) }),
    });

    let config: ConnectionConfig;
    try {
      config = this.deps.cipher.decrypt(row.connection_config) as ConnectionConfig;
    } catch (err) {
      return answer(undefined, err);
    }
    secrets = secretsOf(config as Record<string, unknown>);
    const pages = this.deps.open(row.connector_type, config, row.query, {
      lastPull: row.last_pull_at ?? NEVER_PULLED,
      batchSize: row.batch_size,
      connectTimeoutMs: this.deps.connectTimeoutMs,
      statementTimeoutMs: this.deps.statementTimeoutMs,
      cloud: this.deps.cloud,
    });

    // The first page is read before ingestion is called, so a source that cannot be reached makes no upload.
    let first: IteratorResult<Row[], void>;
    try {
      first = await pages.next();
    } catch (err) {
      return answer(undefined, err);
    }
    if (first.done) return answer(undefined);

    let sourceError: unknown;
    const body = async function* (): AsyncGenerator<Buffer> {
      let page = first.value as Row[];
      try {
        for (;;) {
          const lines = page.map((r) => `${JSON.stringify(rowToJson(r))}\n`).join('');
          pulled += page.length;
          yield Buffer.from(lines, 'utf8');
          const next = await pages.next();
          if (next.done) return;
          page = next.value;
        }
      } catch (err) {
        sourceError = err ?? new Error('the source failed');
      } finally {
        await pages.return(undefined);
      }
    };
    let outcome: UploadResult;
    try {
      outcome = await this.deps.ingestion.stream(INGESTION_CONNECTOR_UPLOAD, {
        identity,
        query: { collection: row.collection, record_type: row.record_type, source_name: row.name, name_column: row.name_column ?? undefined },
        body: body(),
        requestId,
        timeoutMs: this.deps.uploadTimeoutMs,
      });
    } catch (err) {
      await pages.return(undefined).catch(() => undefined);
      return answer(undefined, err);
    }
    return answer(outcome, sourceError);
  }
}
