import type { CollectionSettings } from '@trove/contracts';
import { queryWords, STOP_WORDS } from './classify';
import { DEFAULT_TYPO_RULES, type TypoRules } from './typos';

/**
 * The words a text query matches with, the same in both engines and in highlights (highlight.ts): runs of letters and
 * digits (classify.ts's queryWords), at most MAX_TERMS of them, each at most MAX_TERM_LENGTH characters; with a
 * collection's settings, its stop words left out and its synonyms added (matchTerms()).
 */

const MAX_TERMS = 16;
const MAX_TERM_LENGTH = 100;
/** Synonyms one term matches with at most, so a rule-heavy collection cannot flood a query. */
const MAX_SYNONYMS = 16;

/** A query's words, in order, each at most MAX_TERM_LENGTH long. */
function wordsOf(text: string): string[] {
  return queryWords(text).filter((w) => w.length <= MAX_TERM_LENGTH);
}

/**
 * A sentence's distinct content words, at most MAX_TERMS: stop words match nearly everything, so they count only when
 * nothing else is left (and are dropped before the words are counted, so a long question keeps its last content words).
 */
function naturalWords(text: string): string[] {
  const words = wordsOf(text);
  const content = [...new Set(words.filter((w) => !STOP_WORDS.has(w)))];
  return (content.length > 0 ? content : [...new Set(words)]).slice(0, MAX_TERMS);
}

/**
 * One term of a query: a word (the last of a keyword query matched as a prefix), or, where a synonym rule's input
 * spans several words ("m8 bolt"), those words (`parts`, each matched as typed). `synonyms`: what matches in its place,
 * each a word or a phrase (its words in a row), scored as the term typed.
 */
export interface MatchTerm {
  word: string;
  prefix: boolean;
  parts?: string[];
  synonyms?: string[][];
}

/**
 * Which fields full text reads, from a collection's settings: the collection_data fields searched (in order of weight;
 * undefined: every one), and where a word matches only as typed (typo_tolerance.disable_on_fields).
 */
export interface FieldRules {
  searchable?: string[];
  typedOnly: { name: boolean; description: boolean; data: string[] };
}

/** What a query takes from its collection's settings: stop words, synonyms, the typo rules (undefined: no typos), fields. */
export interface QueryRules {
  stopWords: Set<string>;
  /** Each rule's input as words, joined by spaces, to what it also finds, each as words. */
  synonyms: Map<string, string[][]>;
  /** The longest input, in words. */
  longest: number;
  typos?: TypoRules;
  fields: FieldRules;
}

const EVERY_FIELD: FieldRules = { typedOnly: { name: false, description: false, data: [] } };

export const NO_RULES: QueryRules = { stopWords: new Set(), synonyms: new Map(), longest: 0, typos: DEFAULT_TYPO_RULES, fields: EVERY_FIELD };

/** Whether the field rules change what full text reads at all (else every field, typos everywhere). */
export function fieldsRestricted(fields: FieldRules): boolean {
  const { name, description, data } = fields.typedOnly;
  return fields.searchable !== undefined || name || description || data.length > 0;
}

/** A collection_data path ("specs.material") as a document's field reads it ("collection_data.specs.material"). */
const underData = (path: string, field: string) => field === `collection_data.${path}` || field.startsWith(`collection_data.${path}.`);

/** Whether full text reads this field of a document (`name`, `description`, `collection_data.<path>`). */
export function searchedField(fields: FieldRules, field: string): boolean {
  if (field === 'name' || field === 'description' || fields.searchable === undefined) return true;
  return fields.searchable.some((path) => underData(path, field));
}

/** Whether a word matches through a typo in this field. */
export function typosInField(fields: FieldRules, field: string): boolean {
  if (field === 'name') return !fields.typedOnly.name;
  if (field === 'description') return !fields.typedOnly.description;
  return !fields.typedOnly.data.some((path) => underData(path, field));
}

/** disable_on_fields read: `name` and `description` are the record's own, anything else (or collection_data.x) its data's. */
function typedOnlyOf(names: string[]): FieldRules['typedOnly'] {
  const data = names.filter((f) => f !== 'name' && f !== 'description').map((f) => f.replace(/^collection_data\./, ''));
  return { name: names.includes('name'), description: names.includes('description'), data };
}

/** A collection's settings as a query applies them: a group's every term finds what each other term would. */
export function rulesOf(settings: CollectionSettings | undefined): QueryRules {
  if (!settings) return NO_RULES;
  const synonyms = new Map<string, string[][]>();
  const add = (input: string, outputs: string[]) => {
    const key = queryWords(input).join(' ');
    if (!key) return;
    const found = synonyms.get(key) ?? [];
    for (const output of outputs) {
      const words = queryWords(output);
      const text = words.join(' ');
      if (words.length > 0 && text !== key && !found.some((f) => f.join(' ') === text)) found.push(words);
    }
    synonyms.set(key, found);
  };
  for (const rule of settings.synonyms) {
    if (Array.isArray(rule)) for (const term of rule) add(term, rule);
    else for (const input of rule.input) add(input, rule.synonyms);
  }
  const { enabled, min_word_size_one_typo: one, min_word_size_two_typos: two, disable_on_fields } = settings.typo_tolerance;
  return {
    stopWords: new Set(settings.stop_words.flatMap((w) => queryWords(w))),
    synonyms,
    longest: Math.max(0, ...[...synonyms.keys()].map((k) => k.split(' ').length)),
    typos: enabled ? { one, two } : undefined,
    fields: {
      ...(settings.searchable_fields && { searchable: settings.searchable_fields.map((f) => f.replace(/^collection_data\./, '')) }),
      typedOnly: typedOnlyOf(disable_on_fields ?? []),
    },
  };
}

/**
 * The terms a keyword query (every term, the last word as a prefix) or a natural-language one (any term) matches with:
 * its words without the collection's stop words (unless that leaves none), each run of words that is a synonym rule's
 * input (the longest first) one term with the rule's synonyms.
 */
export function matchTerms(query: string, mode: 'keyword' | 'any', rules: QueryRules = NO_RULES): MatchTerm[] {
  // A keyword query's words in order, every one must match, the last as a prefix.
  const all = mode === 'keyword' ? wordsOf(query).slice(0, MAX_TERMS) : naturalWords(query);
  const kept = all.filter((w) => !rules.stopWords.has(w));
  const words = kept.length > 0 ? kept : all;
  const terms: MatchTerm[] = [];
  for (let i = 0; i < words.length; ) {
    let matched = 0;
    for (let k = Math.min(rules.longest, words.length - i); k >= 1 && matched === 0; k--) {
      if (rules.synonyms.has(words.slice(i, i + k).join(' '))) matched = k;
    }
    const last = i + Math.max(1, matched) === words.length;
    if (matched === 0) {
      terms.push({ word: words[i]!, prefix: mode === 'keyword' && last });
      i++;
      continue;
    }
    const span = words.slice(i, i + matched);
    const synonyms = rules.synonyms.get(span.join(' '))!.slice(0, MAX_SYNONYMS);
    // A one-word input keeps the prefix match of a keyword query's last word; its synonyms match whole.
    const prefix = mode === 'keyword' && last && matched === 1;
    terms.push({ word: span.join(' '), prefix, ...(matched > 1 && { parts: span }), ...(synonyms.length > 0 && { synonyms }) });
    i += matched;
  }
  return terms;
}

/**
 * The query as its name is compared with the documents' (an exact or a starting name ranks first): its words without
 * the collection's stop words, unless that leaves none.
 */
export function withoutStopWords(query: string, rules: QueryRules): string {
  if (rules.stopWords.size === 0) return query;
  const words = queryWords(query);
  const kept = words.filter((w) => !rules.stopWords.has(w));
  return (kept.length > 0 ? kept : words).join(' ');
}
