/** The fields a generated description is built from. */
export interface DescribedRecord {
  name: string;
  record_type: string;
  collection: string;
  collection_data: Record<string, unknown>;
}

export const DESCRIPTION_MAX_LENGTH = 300;
const VALUE_MAX_LENGTH = 60;
const MAX_FACTS = 8;
const ARRAY_MAX_ITEMS = 5;

/**
 * Keys that usually tell a reader (and a search engine) most about a record, best first. Matched after lower-casing
 * and dropping separators, so `Part Number`, `part_number` and `partNumber` are the same key.
 */
const TELLING_KEYS = [
  'brand',
  'manufacturer',
  'make',
  'vendor',
  'category',
  'subcategory',
  'type',
  'kind',
  'model',
  'series',
  'material',
  'standard',
  'norm',
  'grade',
  'finish',
  'size',
  'dimensions',
  'diameter',
  'length',
  'width',
  'height',
  'thread',
  'color',
  'colour',
  'weight',
  'capacity',
  'power',
  'voltage',
  'price',
  'currency',
  'unit',
  'ean',
  'gtin',
  'upc',
  'isbn',
  'sku',
  'mpn',
  'partnumber',
  'articlenumber',
  'author',
  'publisher',
  'year',
  'country',
  'city',
  'location',
  'status',
].map(normaliseKey);

/** Keys whose values say nothing to a reader: identifiers, links, pictures, bookkeeping dates. */
const DULL_KEYS = new Set(
  ['id', 'uuid', 'guid', 'url', 'link', 'href', 'image', 'imageurl', 'thumbnail', 'photo', 'createdat', 'updatedat', 'description', 'notes'].map(
    normaliseKey,
  ),
);

function normaliseKey(key: string): string {
  return key.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/** `unit_price` and `unitPrice` read as `unit price`. */
function humaniseKey(key: string): string {
  return key
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/[_\-.\s]+/g, ' ')
    .trim()
    .toLowerCase();
}

/** Whitespace other than single spaces between words; without any, a text is already one tidy line. */
const LOOSE_WHITESPACE = /^\s|\s$|\s\s|[^\S ]/;

function oneLine(text: string): string {
  // Testing first spares the common tidy value two string copies: descriptions are built for every uploaded record.
  return LOOSE_WHITESPACE.test(text) ? text.replace(/\s+/g, ' ').trim() : text;
}

function looksLikeUrl(text: string): boolean {
  return /^(?:(?:https?|ftp):\/\/|www\.)/i.test(text);
}

function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') {
    const text = oneLine(value);
    if (text === '' || text.length > VALUE_MAX_LENGTH || looksLikeUrl(text)) return undefined;
    return text;
  }
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return undefined;
}

/** Short scalars, and short lists of them; nested objects, long text and links are left out. */
function valueText(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    if (value.length === 0 || value.length > ARRAY_MAX_ITEMS) return undefined;
    const parts = value.map(scalarText);
    if (parts.some((p) => p === undefined)) return undefined;
    const joined = parts.join('/');
    return joined.length <= VALUE_MAX_LENGTH ? joined : undefined;
  }
  return scalarText(value);
}

/** Position among the telling keys (a plural such as `colors` counts as its singular); others come after. */
function rank(k: string): number {
  const i = TELLING_KEYS.indexOf(k);
  if (i !== -1) return i;
  const singular = k.endsWith('s') ? TELLING_KEYS.indexOf(k.slice(0, -1)) : -1;
  return singular === -1 ? TELLING_KEYS.length : singular;
}

interface KeyInfo {
  label: string;
  rank: number;
  dull: boolean;
}

const KEY_CACHE_LIMIT = 10_000;
const keyInfos = new Map<string, KeyInfo>();

/**
 * What a key contributes to a description. The records of one upload share their keys, so each key's regular
 * expressions run once rather than once per record; the cache is bounded, as keys come from tenants' data.
 */
function keyInfo(key: string): KeyInfo {
  let info = keyInfos.get(key);
  if (info) return info;
  if (keyInfos.size >= KEY_CACHE_LIMIT) keyInfos.clear();
  const normalised = normaliseKey(key);
  info = { label: humaniseKey(key), rank: rank(normalised), dull: DULL_KEYS.has(normalised) };
  keyInfos.set(key, info);
  return info;
}

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

/** Cuts text to at most `max` characters at a word boundary, marking the cut with an ellipsis. */
export function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = text.slice(0, max - 1);
  const space = room.lastIndexOf(' ');
  const cut = (space > max / 2 ? room.slice(0, space) : room).replace(/[\s,;:.]+$/, '');
  return `${cut}…`;
}

/**
 * One readable sentence about a record, built from its own fields only: what it is, where it belongs, and its most
 * telling short `collection_data` values, e.g. "M8 hex bolt is a product in the fasteners collection with material
 * steel, standard DIN 933, price 0.12." At most 300 characters.
 */
export function describeRecord(record: DescribedRecord): string {
  const name = oneLine(record.name);
  const type = oneLine(record.record_type);
  const collection = oneLine(record.collection);
  const base = `${name} is ${article(type)} ${type} in the ${collection} collection`;

  const facts: Array<{ index: number; label: string; rank: number; text: string }> = [];
  let index = 0;
  for (const [key, value] of Object.entries(record.collection_data)) {
    const info = keyInfo(key);
    const text = info.dull || info.label === '' ? undefined : valueText(value);
    if (text !== undefined) facts.push({ index, label: info.label, rank: info.rank, text });
    index++;
  }
  facts.sort((a, b) => a.rank - b.rank || a.index - b.index);
  facts.length = Math.min(facts.length, MAX_FACTS);

  let sentence = base;
  let separator = ' with ';
  for (const fact of facts) {
    const next = `${sentence}${separator}${fact.label} ${fact.text}`;
    // A fact that does not fit is skipped; a shorter one further down may still fit.
    if (next.length + 1 > DESCRIPTION_MAX_LENGTH) continue;
    sentence = next;
    separator = ', ';
  }
  return cutAtWord(`${sentence}.`, DESCRIPTION_MAX_LENGTH);
}
