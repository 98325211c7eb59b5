import { sql, type Kysely } from '@trove/db';

/**
 * The engine keeps its table fit for its own queries, as autovacuum would, because it cannot count on autovacuum:
 * PGlite has none, a server may run with it off, and even where it runs it analyses a freshly loaded table only after
 * its naptime, so a collection just uploaded would be searched with plans made for a table without statistics (small
 * collections included: they may never reach a threshold counted in tens of thousands).
 *
 * After writes, once they pause for QUIET_MS (or at the latest MAX_DELAY_MS after the first of them, under a steady
 * stream: on PGlite a pass holds the one connection, so passes in the middle of a bulk load slow it down), one pass in
 * the background:
 * - ANALYZE of the columns plans estimate from, when the rows written since the last reach autovacuum's own threshold
 *   (50 + 10 % of the table) or the table was never analysed;
 * - the GIN indexes' pending lists merged (`gin_clean_pending_list`), so that no lookup scans a list of entries written
 *   since: the merge is what the next insert past `gin_pending_list_limit`, or a vacuum, would do, done now;
 * - VACUUM where no autovacuum will (PGlite; a server with `autovacuum` off), when the rows replaced or removed since
 *   the last reach autovacuum's threshold (50 + 20 % of the table). An update leaves a dead row and index entries
 *   behind, and a table left to them grows and slows every search. The writes count them (a new version of a record, a
 *   removal, a generation swap's rows), because PGlite keeps no table statistics (`pg_stat_user_tables` stays at zero
 *   there). Rows only inserted need no vacuum.
 * Each statement skips a table another maintenance holds (SKIP_LOCKED) rather than wait: another search process, or
 * autovacuum, is doing the work. document_values (what aggregation reads, migrations.ts version 5) is written in the
 * statements that write documents, row for row, so the counts of the documents table stand for it: it is analysed
 * and vacuumed with it.
 */

/** How long writes must pause before a pass. */
const QUIET_MS = 2_000;
/** A pass at the latest this long after the first write it covers, however steady the writes (autovacuum naps 60 s). */
const MAX_DELAY_MS = 30_000;
/** autovacuum's defaults (autovacuum_analyze_threshold, _scale_factor; autovacuum_vacuum_threshold, _scale_factor). */
const ANALYZE_BASE = 50;
const ANALYZE_FRACTION = 0.1;
const VACUUM_BASE = 50;
const VACUUM_FRACTION = 0.2;

const TABLE = 'search_engine.documents';

export class Maintenance {
  private writtenSinceAnalyze = 0;
  private replacedSinceVacuum = 0;
  /** When the first write since the last pass began was noted; unset when no write awaits a pass. */
  private firstPendingAt?: number;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private closed = false;

  constructor(
    /** The engine's database, never bounded in time. */
    private readonly db: Kysely<any>,
    /** PGlite has no autovacuum: the engine reclaims dead rows itself there. */
    private readonly kind: 'postgres' | 'pglite',
  ) {}

  /**
   * `written` rows were written (inserted, updated or deleted), `replaced` of them leaving a dead row behind (updated or
   * deleted): a pass follows once writes pause.
   */
  noteWrites(written: number, replaced: number): void {
    if (written <= 0 || this.closed) return;
    this.writtenSinceAnalyze += written;
    this.replacedSinceVacuum += replaced;
    const now = Date.now();
    this.firstPendingAt ??= now;
    clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(QUIET_MS, this.firstPendingAt + MAX_DELAY_MS - now));
    this.timer = setTimeout(() => this.start(), wait);
    // A pending pass never keeps a process alive that has nothing else to do.
    this.timer.unref();
  }

  /** Runs the pending pass now (if writes were noted) and waits for it. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    await this.running;
    if (this.firstPendingAt !== undefined) this.start();
    await this.running;
  }

  /** No pass starts any more; one under way is awaited. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private start(): void {
    if (this.closed) return;
    if (this.running) {
      // One pass at a time: the writes noted meanwhile get the next.
      this.timer = setTimeout(() => this.start(), QUIET_MS);
      this.timer.unref();
      return;
    }
    this.firstPendingAt = undefined;
    this.running = this.pass()
      .catch(() => undefined)
      .finally(() => {
        this.running = undefined;
      });
  }

  private async pass(): Promise<void> {
    const { rows } = await sql<{ rows: number; autovacuum: boolean }>`
      select reltuples::float8 as rows, current_setting('autovacuum') = 'on' as autovacuum
      from pg_class where oid = ${TABLE}::regclass`.execute(this.db);
    const table = rows[0];
    if (!table) return;
    // reltuples is -1 until the first ANALYZE (or VACUUM) of the table.
    const neverAnalysed = table.rows < 0;
    if (neverAnalysed || this.writtenSinceAnalyze >= ANALYZE_BASE + ANALYZE_FRACTION * table.rows) {
      this.writtenSinceAnalyze = 0;
      // Only the columns query plans estimate from: the text and identifier statistics (the costly part), the scope
      // and the name key. Names, descriptions and collection_data (containment has no statistics to use) would cost
      // an ANALYZE about as much again and change no plan.
      await sql`analyze (skip_locked) search_engine.documents (tenant_id, collection, searchable, visibility, generation, name_key, tsv, identifiers)`.execute(
        this.db,
      );
      // Aggregation's plans (a group hashed or sorted, an index or a scan) follow its table's size and scope columns.
      await sql`analyze (skip_locked) search_engine.document_values (tenant_id, collection, searchable, visibility, generation)`.execute(this.db);
    }
    const reclaim = this.kind === 'pglite' || !table.autovacuum;
    if (reclaim && this.replacedSinceVacuum >= VACUUM_BASE + VACUUM_FRACTION * Math.max(table.rows, 0)) {
      this.replacedSinceVacuum = 0;
      // A vacuum merges the pending lists too.
      await sql`vacuum (skip_locked) search_engine.documents, search_engine.document_values`.execute(this.db);
      return;
    }
    await sql`
      select gin_clean_pending_list(i.indexrelid)
      from pg_index i join pg_class ic on ic.oid = i.indexrelid join pg_am am on am.oid = ic.relam
      where i.indrelid = ${TABLE}::regclass and am.amname = 'gin'`.execute(this.db);
  }
}
