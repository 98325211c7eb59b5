import { editionBases, identifierSpans, normaliseIdentifier } from './identifiers';
import type { IndexDocument, SearchHit, SearchQuery } from './port';
import { matchTerms, rulesOf, searchedField, typosInField, type FieldRules } from './terms';
import { withinTypos, type TypoRules } from './typos';

/**
 * Highlights, the same in both engines (docs/behaviour/search.md, "Highlights"): each field of a hit that holds a
 * match, its text HTML-escaped with every match between the search's tags. What counts as a match is what the engines
 * match on: the query's words as typed, the last word of a keyword query as a prefix, a word within a query word's
 * typo budget (typos.ts), and the identifiers an identifier query asks for (an edition's base standard included) or
 * a query word names. The fields are those full text searches: the name, the description and the text values of
 * collection_data (strings and numbers, a few levels deep, as documents.ts's dataText reads them), never the
 * generated description. A long text is cut to a window around its first match.
 */

/** Texts longer than this are cut to a window of about WINDOW characters around their first match. */
const LONGEST_WHOLE = 300;
const WINDOW = 200;
/** Characters of context the window keeps before the first match. */
const LEAD = 60;
/** collection_data is read this deep, as the engines index it (documents.ts). */
const MAX_DEPTH = 3;
const WORD = /[\p{L}\p{N}]+/gu;

type Tags = NonNullable<SearchQuery['highlight']>;

/** What a query matches in a text: its words (as typed, as a prefix, within typos) and identifier forms. */
export interface Matcher {
  /** Each word a match may be, with the query term it stands for and whether it is that term's own word or a synonym's. */
  words: Array<{ word: string; prefix: boolean; term: string; synonym: boolean }>;
  /** The query's terms, in order (terms.ts). */
  terms: string[];
  identifiers: Set<string>;
  /** How typos are matched; none when the collection turns them off. */
  typos?: TypoRules;
  /** The fields full text reads and where typos count (the collection's settings). */
  fields: FieldRules;
}

/** The hits with their highlights, when the query asks for them; as they are otherwise. */
export function withHighlights(hits: SearchHit[], query: SearchQuery): SearchHit[] {
  const tags = query.highlight;
  if (!tags) return hits;
  const matcher = matcherOf(query.text, query.settings);
  return hits.map((hit) => ({ ...hit, highlights: matcher ? highlightDocument(hit.document, matcher, tags) : {} }));
}

export function matcherOf(text: SearchQuery['text'], settings: SearchQuery['settings']): Matcher | undefined {
  if (!text || !text.query.trim()) return undefined;
  const rules = rulesOf(settings);
  if (text.type === 'identifier') {
    const asked = text.identifiers.length > 0 ? text.identifiers.map(normaliseIdentifier) : [normaliseIdentifier(text.query)];
    return { words: [], terms: [], identifiers: new Set([...asked, ...editionBases(text.query)]), fields: rules.fields };
  }
  const terms = matchTerms(text.query, text.type === 'keyword' ? 'keyword' : 'any', rules);
  // A synonym rule's words and its synonyms' words each count where they stand.
  const words = terms.flatMap((t) => [
    ...(t.parts ? t.parts.map((word) => ({ word, prefix: false })) : [{ word: t.word, prefix: t.prefix }]).map((w) => ({ ...w, term: t.word, synonym: false })),
    ...(t.synonyms ?? []).flat().map((word) => ({ word, prefix: false, term: t.word, synonym: true })),
  ]);
  // Identifiers are indexed as words of their own (writes.ts): a query word may name one ("din933"), and so may the
  // query's text ("DIN 933 bolts").
  const identifiers = new Set([...words.map((w) => w.word.toUpperCase()), ...identifierSpans(text.query).flatMap((s) => s.forms)]);
  return { words, terms: terms.map((t) => t.word), identifiers, typos: rules.typos, fields: rules.fields };
}

/** The document's fields holding a match, highlighted. */
export function highlightDocument(document: IndexDocument, matcher: Matcher, tags: Tags): Record<string, string> {
  const out: Record<string, string> = {};
  searchedTexts(document, matcher.fields, (field, text) => {
    const highlighted = highlightText(text, fieldMatcher(matcher, field), tags);
    if (highlighted !== undefined) out[field] = highlighted;
  });
  return out;
}

/** The matcher as it reads one field: without typos where the collection turns them off (disable_on_fields). */
export function fieldMatcher(matcher: Matcher, field: string): Matcher {
  return matcher.typos && !typosInField(matcher.fields, field) ? { ...matcher, typos: undefined } : matcher;
}

/**
 * Each text full text searches in a document, with its field: the name, the description and collection_data's text
 * and number values (nested keys and array indexes dotted), as the engines index them; of collection_data, only the
 * collection's searchable fields when it names them.
 */
export function searchedTexts(document: IndexDocument, fields: FieldRules, each: (field: string, text: string) => void): void {
  each('name', document.name);
  if (document.description) each('description', document.description);
  const visit = (value: unknown, path: string, depth: number): void => {
    if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) {
      if (searchedField(fields, path)) each(path, String(value));
    }
    else if (value && typeof value === 'object' && depth < MAX_DEPTH) {
      for (const [key, v] of Array.isArray(value) ? value.entries() : Object.entries(value)) visit(v, `${path}.${key}`, depth + 1);
    }
  };
  visit(document.collection_data, 'collection_data', 0);
}

/** The text with its matches tagged, cut to a window around the first when long; undefined when nothing matches. */
export function highlightText(text: string, matcher: Matcher, tags: Tags): string | undefined {
  const ranges = matchRanges(text, matcher);
  if (ranges.length === 0) return undefined;
  let [from, to] = [0, text.length];
  if (text.length > LONGEST_WHOLE) {
    from = wordStart(text, Math.max(0, ranges[0]![0] - LEAD));
    to = Math.max(wordEnd(text, Math.min(text.length, from + WINDOW)), ranges[0]![1]);
  }
  let out = from > 0 ? '…' : '';
  let at = from;
  for (const [start, end] of ranges) {
    if (start >= to) break;
    to = Math.max(to, end);
    out += escapeHtml(text.slice(at, start)) + tags.pre_tag + escapeHtml(text.slice(start, end)) + tags.post_tag;
    at = end;
  }
  out += escapeHtml(text.slice(at, to));
  return to < text.length ? `${out}…` : out;
}

/** Where the text matches, as sorted, non-overlapping [start, end) ranges. */
function matchRanges(text: string, { words, identifiers, typos }: Matcher): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  if (words.length > 0) {
    for (const m of text.matchAll(WORD)) {
      const token = m[0].toLowerCase();
      if (words.some((w) => token === w.word || (w.prefix && token.startsWith(w.word)) || (typos !== undefined && withinTypos(w.word, token, typos)))) {
        ranges.push([m.index, m.index + m[0].length]);
      }
    }
  }
  if (identifiers.size > 0) {
    for (const span of identifierSpans(text)) if (span.forms.some((f) => identifiers.has(f))) ranges.push([span.start, span.end]);
  }
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: Array<[number, number]> = [];
  for (const range of ranges) {
    const last = merged.at(-1);
    if (last && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push([...range]);
  }
  return merged;
}

/** The start of the word at `i` (or `i` when it falls between words). */
function wordStart(text: string, i: number): number {
  while (i > 0 && /[\p{L}\p{N}]/u.test(text[i - 1]!)) i--;
  return i;
}

/** The end of the word at `i`. */
function wordEnd(text: string, i: number): number {
  while (i < text.length && /[\p{L}\p{N}]/u.test(text[i]!)) i++;
  return i;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}
