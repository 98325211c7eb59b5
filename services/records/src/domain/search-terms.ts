/**
 * Name search works on terms: runs of letters and digits, lower-cased. The same function tokenises a record's name
 * when it is stored and the `q` of a listing, so both sides agree whatever the database's locale or the text search
 * parser would make of punctuation (`M8x20`, `DIN-933`, `steel/zinc`).
 */
export function searchTerms(text: string): string[] {
  return (text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** The text stored for a name, fed to `to_tsvector('simple', …)`. */
export function nameSearchText(name: string): string {
  return searchTerms(name).join(' ');
}

/**
 * A tsquery (for `to_tsquery('simple', …)`) in which every term must match and the last one may be a prefix, so a
 * listing narrows as the user types. Undefined when the query holds no term at all.
 */
export function nameQuery(q: string): string | undefined {
  const terms = searchTerms(q);
  if (terms.length === 0) return undefined;
  return terms.map((t, i) => `'${t}'${i === terms.length - 1 ? ':*' : ''}`).join(' & ');
}
