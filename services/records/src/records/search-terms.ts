import { nameTerms } from '@trove/contracts';

/** A term as a quoted tsvector/tsquery lexeme. Terms hold only letters and digits; escaping is belt and braces. */
function lexeme(term: string): string {
  return /['\\]/.test(term) ? `'${term.replace(/\\/g, '\\\\').replace(/'/g, "''")}'` : `'${term}'`;
}

/**
 * A name's search vector as tsvector text (cast with `::tsvector`): each term with its positions, as
 * to_tsvector('simple', …) would give them, but built here from the same terms the listing queries with, so the
 * database's text search parser never gets a say, and the database is spared the parsing.
 */
export function nameVector(name: string): string {
  const positions = new Map<string, number[]>();
  nameTerms(name).forEach((term, i) => {
    const list = positions.get(term);
    // tsvector positions stop at 16383; names are far shorter.
    if (list) list.push(Math.min(i + 1, 16383));
    else positions.set(term, [Math.min(i + 1, 16383)]);
  });
  let out = '';
  for (const [term, at] of positions) out += `${out ? ' ' : ''}${lexeme(term)}:${at.join(',')}`;
  return out;
}

/**
 * A tsquery as text (cast with `::tsquery`, matching nameVector) in which every term must match and the last one may
 * be a prefix, so a listing narrows as the user types. Undefined when the query holds no term at all.
 */
export function nameQuery(q: string): string | undefined {
  const terms = nameTerms(q);
  if (terms.length === 0) return undefined;
  return terms.map((t, i) => `${lexeme(t)}${i === terms.length - 1 ? ':*' : ''}`).join(' & ');
}
