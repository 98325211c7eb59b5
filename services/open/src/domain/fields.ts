/** Fields a schema lists at most; a collection with more shows those most records have. */
export const MAX_FIELDS = 100;
/** Distinct sample values shown per field. */
export const MAX_SAMPLES = 4;
const MAX_SAMPLE_CHARS = 40;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/;

type FieldType = 'string' | 'number' | 'boolean' | 'date' | 'object';

interface FieldInfo {
  name: string;
  records: number;
  types: Set<FieldType>;
  array: boolean;
  samples: string[];
}

function typeOf(value: unknown): FieldType | undefined {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return ISO_DATE.test(value) ? 'date' : 'string';
  if (value !== null && typeof value === 'object') return 'object';
  return undefined;
}

function sampleOf(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_SAMPLE_CHARS ? `${flat.slice(0, MAX_SAMPLE_CHARS - 1)}…` : flat;
}

/**
 * The filterable fields of sampled `collection_data` objects as the Open schema lists them,
 * `<field> (<type>): <sample values>`: top-level fields only (filters address those), the type inferred from the
 * values (`number`, `string`, `boolean`, `date` for ISO dates, `<type>[]` for lists, `a|b` when they differ), up to
 * four distinct samples. Fields most records have come first, then by name.
 */
export function filterableFields(samples: Array<Record<string, unknown>>): string[] {
  const byName = new Map<string, FieldInfo>();
  for (const data of samples) {
    for (const [name, raw] of Object.entries(data ?? {})) {
      if (raw === null || raw === undefined) continue;
      let info = byName.get(name);
      if (!info) {
        info = { name, records: 0, types: new Set(), array: false, samples: [] };
        byName.set(name, info);
      }
      info.records += 1;
      const values = Array.isArray(raw) ? raw : [raw];
      if (Array.isArray(raw)) info.array = true;
      for (const v of values) {
        const t = typeOf(v);
        if (!t) continue;
        info.types.add(t);
        const s = sampleOf(v);
        if (info.samples.length < MAX_SAMPLES && s !== '' && !info.samples.includes(s)) info.samples.push(s);
      }
    }
  }
  return [...byName.values()]
    .filter((f) => f.types.size > 0)
    .sort((a, b) => b.records - a.records || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, MAX_FIELDS)
    .map((f) => {
      const type = [...f.types].sort().join('|');
      return `${f.name} (${f.array ? (f.types.size > 1 ? `(${type})[]` : `${type}[]`) : type}): ${f.samples.join(', ')}`;
    });
}
