import { detectIdentifier } from './identifiers';
import type { QueryType } from './port';

/**
 * Words that make a query read like a sentence, and that a natural-language search ignores when the query has other
 * terms (they match nearly every document, so they add cost and no ranking signal). English and German, the
 * languages of the catalogues Trove serves most; a miss only means a query is treated as keywords.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'about', 'all', 'an', 'and', 'any', 'are', 'as', 'at', 'be', 'best', 'by', 'can', 'cheap', 'could', 'do',
  'does', 'for', 'from', 'get', 'give', 'good', 'has', 'have', 'how', 'i', 'in', 'into', 'is', 'it', 'its', 'like',
  'me', 'my', 'need', 'of', 'on', 'or', 'over', 'please', 'show', 'some', 'than', 'that', 'the', 'their', 'there',
  'these', 'this', 'those', 'to', 'under', 'was', 'we', 'what', 'when', 'where', 'which', 'who', 'whose', 'why',
  'will', 'with', 'without', 'would', 'you', 'your',
  'auf', 'aus', 'bei', 'das', 'dem', 'den', 'der', 'die', 'ein', 'eine', 'einen', 'für', 'gibt', 'ich', 'ist',
  'mit', 'oder', 'ohne', 'suche', 'und', 'von', 'was', 'welche', 'welcher', 'wie', 'wo', 'zu', 'zum', 'zur',
]);

const QUESTION_WORDS = new Set([
  'what', 'which', 'who', 'whose', 'where', 'when', 'why', 'how', 'can', 'could', 'do', 'does', 'is', 'are', 'should',
  'find', 'show', 'list', 'give', 'recommend', 'suggest',
  'was', 'welche', 'welcher', 'welches', 'wer', 'wo', 'wann', 'warum', 'wie', 'gibt', 'zeige', 'finde', 'suche',
]);

/** Words of a query as classification sees them: lowercase runs of letters and digits. */
export function queryWords(query: string): string[] {
  return query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * identifier when the whole query is one identifier (see identifiers.ts); natural_language when it reads like a
 * sentence: a trailing `?`, a leading question word, four or more words, or any stop word; keyword otherwise (one
 * to three content words, every one of which a match must hold).
 */
export function classifyQuery(query: string): { type: QueryType; identifiers: string[] } {
  const identifiers = detectIdentifier(query);
  if (identifiers) return { type: 'identifier', identifiers };
  const words = queryWords(query);
  const sentence =
    query.trim().endsWith('?') ||
    words.length >= 4 ||
    (words.length > 0 && QUESTION_WORDS.has(words[0]!) && words.length > 1) ||
    words.some((w) => STOP_WORDS.has(w));
  return { type: sentence ? 'natural_language' : 'keyword', identifiers: [] };
}
