/** A record ingestion could not store, with why, as the dead-letter entry the API shows. */
export interface DeadLetter {
  record_index: number;
  error: string;
  record_data: Record<string, unknown>;
}

export interface UploadSummary {
  submitted: number;
  accepted: number;
  rejected: number;
  dedup_skipped: number;
}

export type WriteStatus = 'created' | 'updated' | 'skipped';

/** How many dead letters an upload result carries inline; GET /uploads/{id}/errors lists them all. */
export const ERRORS_IN_RESULT = 100;

/**
 * The running count of one upload. Reconciliation holds when every submitted record is accounted for exactly once
 * (accepted, rejected or skipped as a duplicate) and records confirmed every write ingestion counted as accepted: a
 * chunk that failed or an answer that did not account for each record of its chunk breaks it.
 */
export class Tally {
  submitted = 0;
  accepted = 0;
  rejected = 0;
  dedupSkipped = 0;
  private unconfirmed = false;
  private backlog = 0;

  /** Records' outcome of one chunk. */
  written(statuses: WriteStatus[]): void {
    for (const s of statuses) {
      if (s === 'skipped') this.dedupSkipped++;
      else this.accepted++;
    }
  }

  /** A record records refused (the tenant's plan allows no more): rejected, yet accounted for. */
  refused(): void {
    this.rejected++;
  }

  /** A chunk, or part of one, that records did not confirm: its records are rejected and counted as unwritten. */
  unwritten(count: number): void {
    this.rejected += count;
    if (count > 0) this.unconfirmed = true;
  }

  /** The indexing backlog records reported after a write. */
  observeBacklog(pending: number): void {
    this.backlog = Math.max(this.backlog, pending);
  }

  summary(): UploadSummary {
    return { submitted: this.submitted, accepted: this.accepted, rejected: this.rejected, dedup_skipped: this.dedupSkipped };
  }

  reconciliationPassed(): boolean {
    return !this.unconfirmed && this.submitted === this.accepted + this.rejected + this.dedupSkipped;
  }

  /** Whether indexing lags: the largest backlog records reported during the upload is above the threshold. */
  backpressure(threshold: number): boolean {
    return this.backlog > threshold;
  }
}

/**
 * The first dead letters by record_index, whatever order they arrive in (a chunk's write failures come after later
 * records' parse errors). Holds at most twice the limit.
 */
export class FirstDeadLetters {
  private items: DeadLetter[] = [];

  constructor(private readonly limit = ERRORS_IN_RESULT) {}

  add(letter: DeadLetter): void {
    this.items.push(letter);
    if (this.items.length >= 2 * this.limit) this.items = this.sorted();
  }

  list(): DeadLetter[] {
    return this.sorted();
  }

  private sorted(): DeadLetter[] {
    return [...this.items].sort((a, b) => a.record_index - b.record_index).slice(0, this.limit);
  }
}
