/** How a pull reads its source: within these limits, under the SSRF rule when `cloud`. */
export interface PullOptions {
  /** Bound as :last_pull: the start of the last successful pull, or NEVER_PULLED. */
  lastPull: Date;
  batchSize: number;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  /** DEPLOYMENT_MODE=cloud: hosts are checked on their resolved addresses (net/address-guard.ts). */
  cloud: boolean;
}

export type Row = Record<string, unknown>;

/**
 * Pages of at most batchSize rows, read with the database's cursor as the caller asks for them: the connection is
 * opened on the first request and closed when the iteration ends, whether it ran out, failed or was stopped early.
 */
export type Pages = AsyncGenerator<Row[], void, undefined>;
