import { firstUnstorable, replaceUnstorable } from '@trove/contracts';
import type { IndexChange, IndexDocument, Scalar } from './port';

/** Helpers both engines use to read documents the same way. */

/** Bound on the collection_data text an engine indexes, so one huge record cannot bloat an index. */
export const MAX_DATA_TEXT = 8_000;
const MAX_DEPTH = 3;

/**
 * The text values of collection_data (strings and numbers, nested objects and arrays a few levels deep), keys
 * excluded, space-separated, at most MAX_DATA_TEXT characters. Booleans are left out: "true" is no search term.
 */
export function dataText(data: Record<string, unknown>): string {
  const parts: string[] = [];
  let length = 0;
  const visit = (value: unknown, depth: number): void => {
    if (length >= MAX_DATA_TEXT) return;
    if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) {
      const text = String(value).trim();
      if (text) {
        parts.push(text);
        length += text.length + 1;
      }
    } else if (value && typeof value === 'object' && depth < MAX_DEPTH) {
      for (const v of Array.isArray(value) ? value : Object.values(value)) visit(v, depth + 1);
    }
  };
  visit(data, 0);
  const text = parts.join(' ');
  return text.length > MAX_DATA_TEXT ? text.slice(0, MAX_DATA_TEXT) : text;
}

/**
 * Why an engine must refuse this change, or undefined when it is well-formed. Both engines check the same rules, so
 * a malformed change (from a bug upstream, since writers validate) fails alone and identically everywhere.
 */
export function changeProblem(change: IndexChange): string | undefined {
  if (!change || (change.op !== 'upsert' && change.op !== 'remove')) return 'unknown change op';
  const { tenant_id, record_id, version } = change.op === 'upsert' ? (change.document ?? ({} as IndexDocument)) : change;
  if (typeof tenant_id !== 'string' || !tenant_id) return 'tenant_id must be a non-empty string';
  if (typeof record_id !== 'string' || !record_id) return 'record_id must be a non-empty string';
  if (!Number.isSafeInteger(version) || version < 0) return 'version must be a non-negative integer';
  if (change.op === 'remove') return undefined;
  const d = change.document;
  if (!Number.isSafeInteger(change.active_generation)) return 'active_generation must be an integer';
  if (!Number.isSafeInteger(d.generation)) return 'generation must be an integer';
  if (typeof d.collection !== 'string' || !d.collection) return 'collection must be a non-empty string';
  if (typeof d.name !== 'string') return 'name must be a string';
  if (typeof d.record_type !== 'string') return 'record_type must be a string';
  if (d.description !== null && typeof d.description !== 'string') return 'description must be a string or null';
  if (typeof d.description_llm !== 'string') return 'description_llm must be a string';
  if (!d.collection_data || typeof d.collection_data !== 'object' || Array.isArray(d.collection_data)) {
    return 'collection_data must be an object';
  }
  if (!['active', 'archived', 'draft'].includes(d.status)) return 'status must be active, archived or draft';
  if (d.visibility !== 'private' && d.visibility !== 'public') return 'visibility must be private or public';
  if (typeof d.updated_at !== 'string') return 'updated_at must be a string';
  return undefined;
}

/**
 * The string without what JSON stores and PostgreSQL refuses: NUL characters are dropped, unpaired UTF-16
 * surrogates (a string cut in the middle of an emoji) become U+FFFD.
 */
export function cleanText(text: string): string {
  return replaceUnstorable(text, (c) => (c === '\u0000' ? '' : '\uFFFD'));
}

/** A JSON value with every string and key cleaned (see cleanText); the value itself when nothing needed cleaning. */
export function cleanJson<T>(value: T): T {
  // At any depth: what records stored is indexed whole.
  return firstUnstorable(value, Infinity) ? (clean(value) as T) : value;
}

function clean(value: unknown): unknown {
  if (typeof value === 'string') return cleanText(value);
  if (!value || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(clean);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [cleanText(k), clean(v)]));
}

/**
 * Ties by value in jsonb order, as the PostgreSQL engine sorts them: strings (by code point, as the engine's C
 * collation compares them), then numbers, then booleans (false first).
 */
export function compareScalars(a: Scalar, b: Scalar): number {
  const rank = (v: Scalar) => (typeof v === 'string' ? 0 : typeof v === 'number' ? 1 : 2);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return Buffer.compare(Buffer.from(String(a)), Buffer.from(String(b)));
}
