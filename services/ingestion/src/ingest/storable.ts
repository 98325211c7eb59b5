import {
  COLLECTION_DATA_MAX_DEPTH as MAX_DEPTH,
  COLLECTION_DATA_MAX_FIELDS,
  FIELD_NAME_MAX_LENGTH,
  fieldLimitProblem,
  firstUnstorable,
  replaceUnstorable,
} from '@trove/contracts';

/**
 * The first part of a JSON value that records would refuse to store (firstUnstorable), as a message naming its path,
 * or undefined. `path` names the value itself (e.g. `collection_data`).
 */
export function unstorablePart(value: unknown, path: string): string | undefined {
  const part = firstUnstorable(value);
  if (!part) return undefined;
  const steps = part.reason === 'key' ? part.path.slice(0, -1) : part.path;
  const at = path + pathText(steps);
  if (part.reason === 'too_deep') return `${at} is nested more than ${MAX_DEPTH} levels deep`;
  if (part.reason === 'not_finite') return `${at} is not a finite number`;
  if (part.reason === 'key') return `${at} has a key with a NUL character or an unpaired surrogate, which cannot be stored`;
  return `${at} contains a NUL character or an unpaired surrogate, which cannot be stored`;
}

/** A path inside a value as `[0].name`. */
function pathText(steps: (string | number)[]): string {
  return steps.map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`)).join('');
}

/**
 * Why collection_data breaks the field limits records applies (too many fields over every nested level, a field name
 * too long), as a message, or undefined. Expects data that unstorablePart accepted.
 */
export function fieldLimitBreach(data: Record<string, unknown>): string | undefined {
  const problem = fieldLimitProblem(data);
  if (!problem) return undefined;
  if (problem.reason === 'too_many_fields') {
    return `collection_data has more than ${COLLECTION_DATA_MAX_FIELDS} fields, counted over every nested level`;
  }
  const at = pathText(problem.path.slice(0, -1));
  const key = String(problem.path.at(-1));
  return `collection_data${at} has a field name longer than ${FIELD_NAME_MAX_LENGTH} characters ("${key.slice(0, 40)}…")`;
}

/** How much of a submitted value a dead letter keeps, in characters of keys and text: it stays small whatever was sent. */
export const DEAD_LETTER_DATA_LIMIT = 64 * 1024;

/**
 * A copy of a submitted value that jsonb can hold, for a dead letter's record_data: what cannot be stored is replaced
 * by U+FFFD, nesting beyond what PostgreSQL accepts comfortably is cut off as a string, and past
 * DEAD_LETTER_DATA_LIMIT characters text is cut (ending in …) and further fields or items are left out, a last entry
 * `…` saying how many.
 */
export function storableCopy(value: unknown): unknown {
  return copyOf(value, 1, { left: DEAD_LETTER_DATA_LIMIT });
}

function copyOf(value: unknown, depth: number, budget: { left: number }): unknown {
  if (typeof value === 'string') {
    const kept = value.length > budget.left ? `${value.slice(0, Math.max(budget.left, 0))}…` : value;
    budget.left -= kept.length;
    return replaceUnstorable(kept, () => '\uFFFD');
  }
  budget.left -= 8;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (value === null || typeof value === 'boolean') return value;
  if (value === undefined) return null;
  if (depth > 100) return '[nested too deeply]';
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      if (budget.left <= 0) {
        items.push(`… ${value.length - i} more items not kept`);
        break;
      }
      items.push(copyOf(value[i], depth + 1, budget));
    }
    return items;
  }
  if (typeof value === 'object') {
    const keys = Object.keys(value);
    const entries: [string, unknown][] = [];
    for (let i = 0; i < keys.length; i++) {
      if (budget.left <= 0) {
        entries.push(['…', `${keys.length - i} more fields not kept`]);
        break;
      }
      const key = keys[i]!;
      budget.left -= key.length;
      entries.push([replaceUnstorable(key, () => '\uFFFD'), copyOf((value as Record<string, unknown>)[key], depth + 1, budget)]);
    }
    // fromEntries defines own properties, so a key such as __proto__ stays data.
    return Object.fromEntries(entries);
  }
  return String(value);
}
