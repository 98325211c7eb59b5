import { createHash, hash } from 'node:crypto';

/**
 * sha256 as hex. The one-shot crypto.hash (Node 20.12 and later) is used where present: a Hash object per record costs
 * more than hashing the record's few hundred bytes.
 */
const sha256Hex: (text: string) => string =
  typeof hash === 'function' ? (text) => hash('sha256', text, 'hex') : (text) => createHash('sha256').update(text).digest('hex');

/**
 * A copy of a JSON value whose objects list their keys in sorted order at every level, so JSON.stringify (native, and
 * far faster than writing the text by hand) gives one text for values that are equal as JSON whatever order their
 * keys arrived in. (Integer-like keys come first in any JavaScript object; the order is still fixed, which is all a
 * hash needs.)
 */
function sortedCopy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(sortedCopy);
  const object = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(object).sort()) {
    // Assigning `__proto__` would set the copy's prototype and drop the key from the text.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: sortedCopy(object[key]), enumerable: true, writable: true, configurable: true });
    else copy[key] = sortedCopy(object[key]);
  }
  return copy;
}

/** JSON with object keys sorted at every level; undefined members are left out, as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedCopy(value)) ?? 'null';
}

/**
 * What dedup compares (docs/behaviour/ingestion.md, Dedup): a record's content is its name and collection_data. The sha256 (hex) of
 * their canonical JSON is stored with every record, so finding a duplicate is an index lookup, not a JSON comparison.
 */
export function contentHash(record: { name: string; collection_data: Record<string, unknown> }): string {
  return sha256Hex(canonicalJson([record.name, record.collection_data]));
}
