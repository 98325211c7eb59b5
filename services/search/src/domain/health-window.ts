/** One search as the health report counts it. */
export interface SearchSample {
  ms: number;
  zeroResults: boolean;
  fallback: boolean;
}

export interface SearchHealth {
  window: { size: number; searches: number; since: string | null };
  latency_ms: { p50: number | null; p95: number | null; p99: number | null };
  zero_result_rate: number;
  fallback_count: number;
}

/** The most recent searches, a fixed number of them, summarised for GET /health/search. */
export class HealthWindow {
  private readonly samples: Array<SearchSample & { at: number }> = [];
  private next = 0;

  constructor(private readonly size: number) {}

  record(sample: SearchSample, at = Date.now()): void {
    const entry = { ...sample, at };
    if (this.samples.length < this.size) this.samples.push(entry);
    else this.samples[this.next] = entry;
    this.next = (this.next + 1) % this.size;
  }

  report(): SearchHealth {
    const n = this.samples.length;
    const sorted = this.samples.map((s) => s.ms).sort((a, b) => a - b);
    const pct = (p: number) => (n === 0 ? null : round(sorted[Math.min(n - 1, Math.ceil((p / 100) * n) - 1)]!));
    return {
      window: { size: this.size, searches: n, since: n === 0 ? null : new Date(Math.min(...this.samples.map((s) => s.at))).toISOString() },
      latency_ms: { p50: pct(50), p95: pct(95), p99: pct(99) },
      zero_result_rate: n === 0 ? 0 : round(this.samples.filter((s) => s.zeroResults).length / n, 4),
      fallback_count: this.samples.filter((s) => s.fallback).length,
    };
  }
}

function round(v: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
