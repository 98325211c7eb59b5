import { queryWords } from '../classify';
import { matchTerms, NO_RULES, type MatchTerm, type QueryRules } from '../terms';

/**
 * A query's terms as the PostgreSQL engine matches them: tsquery text built from the words a query reads into
 * (terms.ts), never from a user's characters.
 */

/** The text the tsvectors and tsqueries are built from: lowercase runs of letters and digits, space-separated. */
export function searchText(text: string): string {
  return queryWords(text).join(' ');
}

/**
 * One term of a query (terms.ts: a word, matched as a prefix when it is a keyword query's last, or a synonym rule's
 * words, with its synonyms), and its near words (typos).
 */
export interface QueryTerm extends MatchTerm {
  typos: string[];
}

/**
 * The terms a query matches with (terms.ts), or none when it has no letters or digits. keyword: every word, the last
 * as a prefix. any: the distinct words, stop words dropped unless they are all there is. `rules`: the collection's
 * stop words and synonyms.
 */
export function queryTerms(query: string, mode: 'keyword' | 'any', rules: QueryRules = NO_RULES): QueryTerm[] {
  return matchTerms(query, mode, rules).map((t) => ({ ...t, typos: [] }));
}

/**
 * tsquery text for one term: its word (as a prefix when asked) or any of its near words. Lexemes are runs of letters
 * and digits only, quoted, so no user character ever reaches tsquery syntax.
 */
export function termQuery(term: QueryTerm, opts: { typos: boolean; prefix: boolean; name?: boolean; own?: boolean; weights?: string }): string {
  // In the name only: the name is tsv's weight-A part (writes.ts), so each lexeme is marked :A; `weights` marks others
  // (B the description, C collection_data).
  const a = opts.weights ?? (opts.name ? 'A' : '');
  const marks = (prefix: boolean) => (prefix ? `:*${a}` : a ? `:${a}` : '');
  const lexeme = (word: string, prefix = false) => `'${word}'${marks(prefix)}`;
  // A synonym rule's words each match anywhere (as a query's words do); a synonym's words in a row.
  const own = term.parts ? `(${term.parts.map((p) => lexeme(p)).join(' & ')})` : lexeme(term.word, term.prefix && opts.prefix);
  const synonyms = (term.synonyms ?? []).map((words) => (words.length === 1 ? lexeme(words[0]!) : `(${words.map((w) => lexeme(w)).join(' <-> ')})`));
  const typos = opts.typos ? term.typos.map((t) => lexeme(t)) : [];
  // own: false, only the near words (none: a query matching nothing).
  const alternatives = opts.own === false ? typos : [own, ...synonyms, ...typos];
  if (alternatives.length === 0) return `'${term.word}' & !'${term.word}'`;
  return alternatives.length === 1 ? alternatives[0]! : `(${alternatives.join(' | ')})`;
}

/** tsquery text matching the terms: `every` one of them or `any`, anywhere in the document or in its name only. */
export function matchText(terms: QueryTerm[], mode: 'every' | 'any', where: 'anywhere' | 'name' = 'anywhere'): string {
  const opts = { typos: true, prefix: true, name: where === 'name' };
  return terms.map((t) => termQuery(t, opts)).join(mode === 'any' ? ' | ' : ' & ');
}
