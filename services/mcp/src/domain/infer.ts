import { COLLECTION_DATA_MAX_FIELDS } from '@trove/contracts';
import { inline } from './format';

export interface FieldSummary {
  field: string;
  types: string[];
  samples: string[];
  /** How many of the sampled records have the field. */
  present: number;
}

/**
 * Top-level keys looked at per record: the per-record field limit, so a record stored before that limit, with many
 * more fields, costs no more than one within it.
 */
export const KEYS_PER_RECORD = COLLECTION_DATA_MAX_FIELDS;
const SAMPLES = 4;
const SAMPLE_WIDTH = 40;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

export function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'string') return ISO_DATE.test(value) ? 'date' : 'string';
  return typeof value;
}

/**
 * Top-level collection_data fields of records added one at a time (so each record can be dropped once counted):
 * their types and up to 4 distinct short sample values each. It holds at most KEYS_PER_RECORD fields per record
 * added, however wide the records are.
 */
export class FieldTally {
  private readonly fields = new Map<string, { types: Set<string>; samples: Set<string>; present: number }>();
  /** Records with more top-level fields than KEYS_PER_RECORD, of which only the first were counted. */
  wider = 0;

  add(data: unknown): void {
    if (data === null || typeof data !== 'object' || Array.isArray(data)) return;
    let seen = 0;
    for (const key in data) {
      if (seen++ >= KEYS_PER_RECORD) {
        this.wider++;
        break;
      }
      const value = (data as Record<string, unknown>)[key];
      let f = this.fields.get(key);
      if (!f) this.fields.set(key, (f = { types: new Set(), samples: new Set(), present: 0 }));
      f.present++;
      f.types.add(typeOf(value));
      if (value !== null && f.samples.size < SAMPLES) {
        const sample = inline(value, SAMPLE_WIDTH);
        if (sample !== '') f.samples.add(sample);
      }
    }
  }

  /** Distinct fields counted. */
  get size(): number {
    return this.fields.size;
  }

  /** The `max` fields present in most records, then by name (in code-unit order: cheap for thousands of fields). */
  top(max: number): FieldSummary[] {
    return [...this.fields.entries()]
      .sort(([a, fa], [b, fb]) => fb.present - fa.present || (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, max)
      .map(([field, f]) => ({ field, types: [...f.types].sort(), samples: [...f.samples], present: f.present }));
  }
}
