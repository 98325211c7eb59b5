/**
 * Where `:last_pull` stands in a query as a parameter: outside quoted text, quoted identifiers, dollar-quoted
 * bodies and comments, and not as part of a `::` cast or a longer name (`n:last_pull` in Cypher is a label).
 * Returns each occurrence's offset.
 */
function occurrences(query: string): number[] {
  const found: number[] = [];
  const token = ':last_pull';
  let i = 0;
  while (i < query.length) {
    const c = query[i]!;
    const next = query[i + 1];
    if (c === "'" || c === '"' || c === '`') {
      // Quoted: a doubled quote is the quote itself; a backslash escapes in MySQL strings and Cypher.
      i++;
      while (i < query.length) {
        if (query[i] === '\\' && c !== '"') i += 2;
        else if (query[i] === c && query[i + 1] === c) i += 2;
        else if (query[i] === c) break;
        else i++;
      }
      i++;
    } else if (c === '-' && next === '-') {
      i = query.indexOf('\n', i);
      if (i === -1) break;
    } else if (c === '/' && next === '/') {
      i = query.indexOf('\n', i);
      if (i === -1) break;
    } else if (c === '/' && next === '*') {
      const end = query.indexOf('*/', i + 2);
      i = end === -1 ? query.length : end + 2;
    } else if (c === '$' && /^\$[A-Za-z_]?[A-Za-z0-9_]*\$/.test(query.slice(i, i + 64))) {
      const tag = /^\$[A-Za-z_]?[A-Za-z0-9_]*\$/.exec(query.slice(i, i + 64))![0];
      const end = query.indexOf(tag, i + tag.length);
      i = end === -1 ? query.length : end + tag.length;
    } else if (c === ':' && query.startsWith(token, i)) {
      const before = query[i - 1];
      const after = query[i + token.length];
      const partOfName = (ch: string | undefined) => ch !== undefined && /[A-Za-z0-9_:$`]/.test(ch);
      if (!partOfName(before) && !partOfName(after)) found.push(i);
      i += token.length;
    } else i++;
  }
  return found;
}

/**
 * The query with each `:last_pull` replaced by the driver's placeholder (`$1::timestamptz` for PostgreSQL, `?` for
 * MySQL, `$last_pull` for Cypher); `count` says how many there were, so MySQL can bind the value once per `?`.
 * Nothing of the value is ever written into the text.
 */
export function bindLastPull(query: string, placeholder: string): { text: string; count: number } {
  const at = occurrences(query);
  let text = '';
  let from = 0;
  for (const offset of at) {
    text += query.slice(from, offset) + placeholder;
    from = offset + ':last_pull'.length;
  }
  return { text: text + query.slice(from), count: at.length };
}

/** `:last_pull` before the first successful pull: the Unix epoch, so `updated_at > :last_pull` takes every row. */
export const NEVER_PULLED = new Date(0);

/**
 * A MongoDB filter with every string value that is exactly ":last_pull" (at any depth, in objects and arrays)
 * replaced by the date, so `{"updated_at": {"$gt": ":last_pull"}}` compares dates.
 */
export function bindMongoFilter(filter: unknown, lastPull: Date): unknown {
  if (filter === ':last_pull') return lastPull;
  if (Array.isArray(filter)) return filter.map((v) => bindMongoFilter(v, lastPull));
  if (filter !== null && typeof filter === 'object' && Object.getPrototypeOf(filter) === Object.prototype) {
    return Object.fromEntries(Object.entries(filter).map(([k, v]) => [k, bindMongoFilter(v, lastPull)]));
  }
  return filter;
}
