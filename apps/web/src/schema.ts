/** A field of a collection as its records show it: the types its values take, and a few of them. */
export interface InferredField {
  name: string;
  types: string[];
  /** Records (of those read) that have it. */
  present: number;
  samples: string[];
}

const SAMPLES = 3;

export function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** A value as one short line. */
export function preview(value: unknown, max = 60): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The fields of these records' collection_data, most common first (ties by name). */
export function inferSchema(records: ReadonlyArray<{ collection_data: Record<string, unknown> }>): InferredField[] {
  const fields = new Map<string, { types: Set<string>; present: number; samples: string[] }>();
  for (const record of records) {
    for (const [name, value] of Object.entries(record.collection_data)) {
      const field = fields.get(name) ?? { types: new Set<string>(), present: 0, samples: [] };
      field.types.add(typeOf(value));
      field.present += 1;
      const sample = preview(value);
      if (value !== null && value !== '' && field.samples.length < SAMPLES && !field.samples.includes(sample)) field.samples.push(sample);
      fields.set(name, field);
    }
  }
  return [...fields.entries()]
    .map(([name, f]) => ({ name, types: [...f.types].sort(), present: f.present, samples: f.samples }))
    .sort((a, b) => b.present - a.present || a.name.localeCompare(b.name));
}

/**
 * A filter's value as typed into a text box, read as the field's type: numbers and booleans for fields that hold
 * them, text otherwise.
 */
export function filterValue(text: string, types: readonly string[]): string | number | boolean {
  const trimmed = text.trim();
  if ((types.includes('integer') || types.includes('number')) && trimmed !== '' && Number.isFinite(Number(trimmed))) return Number(trimmed);
  if (types.includes('boolean') && (trimmed === 'true' || trimmed === 'false')) return trimmed === 'true';
  return trimmed;
}

/** A fraction of the page's best score, for a score bar (0-100). */
export function scorePercent(score: number, best: number): number {
  if (!(best > 0) || !(score > 0)) return 0;
  return Math.round(Math.min(score / best, 1) * 100);
}
