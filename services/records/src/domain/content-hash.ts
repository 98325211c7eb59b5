import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every level, so two values that are equal as JSON have one text whatever order
 * their keys arrived in. Keys whose value is undefined are left out, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  let out = '{';
  let first = true;
  for (const key of Object.keys(object).sort()) {
    const v = object[key];
    if (v === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${canonicalJson(v)}`;
    first = false;
  }
  return `${out}}`;
}

/**
 * What dedup compares (design.md, Dedup): a record's content is its name and collection_data. Stored with every
 * record, so finding a duplicate is an index lookup rather than a comparison of stored JSON.
 */
export function contentHash(record: { name: string; collection_data: Record<string, unknown> }): string {
  return createHash('sha256')
    .update(canonicalJson({ name: record.name, collection_data: record.collection_data }))
    .digest('hex');
}
