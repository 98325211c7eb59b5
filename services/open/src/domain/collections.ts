import type { OpenCollection } from '@trove/contracts';

/**
 * The description of a collection whose publishers gave none (Trove keeps no collection description yet): what it
 * holds, in one sentence built from its public counts and record types.
 */
export function generatedDescription(collection: string, recordCount: number, recordTypes: string[]): string {
  const noun = recordCount === 1 ? 'record' : 'records';
  const shown = recordTypes.length > 5 ? [...recordTypes.slice(0, 5), `${recordTypes.length - 5} more`] : recordTypes;
  const types = shown.length === 0 ? '' : ` of type ${listOf(shown)}`;
  return `Public collection ${collection} with ${recordCount} ${noun}${types}.`;
}

function listOf(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** `q` of GET /collections: a case-insensitive substring of the name or of the description. */
export function matchesQuery(c: OpenCollection, q: string | undefined): boolean {
  if (!q) return true;
  const needle = q.toLowerCase();
  return c.collection.toLowerCase().includes(needle) || c.description.toLowerCase().includes(needle);
}
