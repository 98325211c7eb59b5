import { queryWords, STOP_WORDS } from './classify';

/**
 * The words a text query matches with, the same in both engines and in highlights (highlight.ts): runs of letters and
 * digits (classify.ts's queryWords), at most MAX_TERMS of them, each at most MAX_TERM_LENGTH characters.
 */

const MAX_TERMS = 16;
const MAX_TERM_LENGTH = 100;

/** A keyword query's words, in order: every one must match, the last as a prefix. */
export function wordsOf(text: string): string[] {
  return queryWords(text)
    .filter((w) => w.length <= MAX_TERM_LENGTH)
    .slice(0, MAX_TERMS);
}

/** A sentence's distinct content words: stop words match nearly everything, so they count only when nothing else is left. */
export function naturalWords(text: string): string[] {
  const words = wordsOf(text);
  const content = words.filter((w) => !STOP_WORDS.has(w));
  return [...new Set(content.length > 0 ? content : words)];
}

/** The words a keyword query (every word, the last as a prefix) or a natural-language one (any word) matches with. */
export function matchWords(query: string, mode: 'keyword' | 'any'): Array<{ word: string; prefix: boolean }> {
  const words = mode === 'keyword' ? wordsOf(query) : naturalWords(query);
  return words.map((word, i) => ({ word, prefix: mode === 'keyword' && i === words.length - 1 }));
}
