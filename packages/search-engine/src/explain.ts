import type { RankingExplanation } from '@trove/contracts';
import { fieldMatcher, matcherOf, searchedTexts } from './highlight';
import { identifierSpans } from './identifiers';
import type { IndexDocument, SearchQuery } from './port';
import { withinTypos } from './typos';

/**
 * Why a result ranked where it did (SearchQuery.explain), the part both engines share: what of the query a document
 * holds and where, read as the highlights are (highlight.ts), so the two always agree. The score's parts are each
 * engine's (the PostgreSQL engine's relevance() parts; Elasticsearch's normalised score).
 */

/** Matches listed per term at most: a word every field repeats says no more the tenth time. */
const MATCHES_PER_TERM = 10;
const WORD = /[\p{L}\p{N}]+/gu;

type Matches = Pick<RankingExplanation, 'terms' | 'identifiers' | 'phrases'>;

/** The score's one part where it is not full text's parts: an identifier's, a filter-only listing's, the fallback's. */
export const SCORE_PART = { text: 'relevance', identifier: 'identifier', filters: 'filters', fallback: 'name_similarity' } as const;

/** How a search found its hits: its text, an identifier, its filters alone, or the typo-tolerant fallback's guesses. */
export function foundBy(query: Pick<SearchQuery, 'text'>, fuzzy: boolean): RankingExplanation['matched_by'] {
  const text = query.text?.query.trim() ? query.text : undefined;
  return !text ? 'filters' : text.type === 'identifier' ? 'identifier' : fuzzy ? 'fallback' : 'text';
}

export function explainMatches(document: IndexDocument, query: Pick<SearchQuery, 'text' | 'settings'>): Matches {
  const matcher = matcherOf(query.text, query.settings);
  if (!matcher) return { terms: [], identifiers: [], phrases: [] };
  const terms = new Map<string, RankingExplanation['terms'][number]['matches']>(matcher.terms.map((t) => [t, []]));
  const identifiers: Matches['identifiers'] = [];
  const phrases = new Set<string>();
  searchedTexts(document, matcher.fields, (field, text) => {
    const typos = fieldMatcher(matcher, field).typos;
    // The terms each word of the field stands for, in order, to find neighbouring terms together.
    const found: Array<Set<string>> = [];
    for (const m of text.matchAll(WORD)) {
      const token = m[0].toLowerCase();
      const here = new Set<string>();
      for (const w of matcher.words) {
        const as =
          token === w.word
            ? w.synonym
              ? 'synonym'
              : 'typed'
            : w.prefix && token.startsWith(w.word)
              ? 'prefix'
              : !w.synonym && typos && withinTypos(w.word, token, typos)
                ? 'typo'
                : undefined;
        if (!as) continue;
        here.add(w.term);
        const list = terms.get(w.term)!;
        if (list.length < MATCHES_PER_TERM && !list.some((x) => x.field === field && x.word === m[0] && x.as === as)) list.push({ field, word: m[0], as });
      }
      found.push(here);
    }
    for (let i = 0; i + 1 < matcher.terms.length; i++) {
      const [a, b] = [matcher.terms[i]!, matcher.terms[i + 1]!];
      if (found.some((here, j) => here.has(a) && found[j + 1]?.has(b))) phrases.add(`${a} ${b}`);
    }
    for (const span of identifierSpans(text)) {
      const identifier = span.forms.find((f) => matcher.identifiers.has(f));
      if (identifier && !identifiers.some((x) => x.field === field && x.identifier === identifier)) {
        identifiers.push({ field, text: text.slice(span.start, span.end), identifier });
      }
    }
  });
  return { terms: [...terms].map(([term, matches]) => ({ term, matches })), identifiers, phrases: [...phrases] };
}
