import { inline } from './format';

export interface FieldSummary {
  field: string;
  types: string[];
  samples: string[];
  /** How many of the sampled records have the field. */
  present: number;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

export function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'string') return ISO_DATE.test(value) ? 'date' : 'string';
  return typeof value;
}

/** Top-level collection_data fields of some records: their types and up to 4 distinct short sample values each. */
export function inferFields(datas: unknown[]): FieldSummary[] {
  const fields = new Map<string, { types: Set<string>; samples: Set<string>; present: number }>();
  for (const data of datas) {
    if (data === null || typeof data !== 'object' || Array.isArray(data)) continue;
    for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
      let f = fields.get(key);
      if (!f) fields.set(key, (f = { types: new Set(), samples: new Set(), present: 0 }));
      f.present++;
      f.types.add(typeOf(value));
      if (value !== null && f.samples.size < 4) {
        const sample = inline(value, 40);
        if (sample !== '') f.samples.add(sample);
      }
    }
  }
  return [...fields.entries()]
    .map(([field, f]) => ({ field, types: [...f.types].sort(), samples: [...f.samples], present: f.present }))
    .sort((a, b) => b.present - a.present || a.field.localeCompare(b.field));
}
