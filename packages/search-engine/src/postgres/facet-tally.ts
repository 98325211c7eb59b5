import { compareScalars } from '../documents';
import type { FacetAnswer, Scalar } from '../port';

/**
 * The values of a search's facet fields for the matches a keyword statement read, each row [row address, v0, v1, ...]
 * (its ctid as text, then each field's value): all the matches when `complete`, else the first its plan found.
 */
export interface FacetRows {
  rows: unknown[][];
  complete: boolean;
}

/**
 * Facet counts kept in the search process from rows the engine already read (a keyword statement's matches, a page
 * sample), with the semantics aggregation.ts's SQL counts by: a document counts once per distinct value of a field, an
 * array once per distinct element; only strings, numbers and booleans are values; stats over the documents whose value
 * is a number; the most frequent first, ties by value in jsonb order (strings, then numbers, then booleans). Each row
 * may stand for several documents (`weight`, a sample's inverse sampling fraction).
 */
export class FacetTally {
  private readonly counts: Array<Map<string, { value: Scalar; count: number }>>;
  private readonly stats: Array<{ count: number; min: number; max: number; sum: number }>;

  constructor(private readonly fields: string[]) {
    this.counts = fields.map(() => new Map());
    this.stats = fields.map(() => ({ count: 0, min: Infinity, max: -Infinity, sum: 0 }));
  }

  /** One document's values of the fields, in their order (undefined or null where it has none). */
  add(values: unknown[], weight = 1): void {
    this.fields.forEach((_, i) => {
      const value = values[i];
      const distinct = Array.isArray(value) ? [...new Map(value.filter(isScalar).map((v) => [JSON.stringify(v), v])).entries()] : isScalar(value) ? [[JSON.stringify(value), value] as const] : [];
      for (const [key, v] of distinct) {
        const held = this.counts[i]!.get(key);
        if (held) held.count += weight;
        else this.counts[i]!.set(key, { value: v, count: weight });
      }
      if (typeof value === 'number' && Number.isFinite(value)) {
        const s = this.stats[i]!;
        s.count += weight;
        s.sum += value * weight;
        s.min = Math.min(s.min, value);
        s.max = Math.max(s.max, value);
      }
    });
  }

  /** Each field's `limit` most frequent values and stats; counts rounded (and marked estimated) when rows were weighted. */
  answers(limit: number, estimated: boolean): Record<string, FacetAnswer> {
    const round = (n: number) => (estimated ? Math.max(1, Math.round(n)) : n);
    return Object.fromEntries(
      this.fields.map((field, i) => {
        const values = [...this.counts[i]!.values()]
          .map((v) => ({ value: v.value, count: round(v.count) }))
          .sort((a, b) => b.count - a.count || compareScalars(a.value, b.value))
          .slice(0, limit);
        const s = this.stats[i]!;
        const answer: FacetAnswer = {
          values,
          ...(s.count > 0 && { stats: { count: round(s.count), min: s.min, max: s.max, avg: s.sum / s.count } }),
          ...(estimated && { estimated: true as const }),
        };
        return [field, answer];
      }),
    );
  }
}

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}
