import type { IndexDocument } from './port';

/**
 * Identifier detection and normalisation, shared by both engines and by query classification, so what a query asks
 * for and what a document is indexed under always agree.
 *
 * What counts as an identifier:
 * - GTINs: EAN-8, UPC-A (12 digits), EAN-13 and GTIN-14 whose check digit is valid. Digits may be grouped by spaces
 *   or hyphens ("4 006381 333931"). All normalise to the 14-digit GTIN, left-padded with zeros, so UPC-A
 *   036000291452 and EAN-13 0036000291452 are one identifier. A JSON number of 7 to 14 digits counts too (CSV import
 *   turns an EAN into a number and drops a UPC's leading zero).
 * - Standards: a known body prefix (DIN, ISO, EN, IEC, ASTM, ANSI, ASME, BS, NF, JIS, VDI, VDE, SAE, IEEE, UL, NEMA,
 *   GOST, CSA, AISI, ÖNORM), optionally chained ("DIN EN ISO 4762", "ISO/IEC 27001"), then a number of at least two
 *   digits with an optional letter before or after it ("ASTM A193"), optional part numbers ("-4-41", ".1") and an
 *   optional ":year". Case and spacing are free: "din933", "DIN 933" and "DIN-933" are one identifier.
 * - Part numbers and SKUs: one token of 4-40 characters, letters and digits in runs joined by `-` `/` `.`, holding at
 *   least one letter AND one digit. Pure digit tokens that are not valid GTINs (years, quantities, prices, postcodes)
 *   are not identifiers, and neither are measurements such as "100mm" or "2.5kg", which read better as keywords.
 *
 * Normal form: uppercase with whitespace and the separators `-` `/` `.` `_` `:` removed ("ISO 9001:2015" →
 * "ISO90012015"), GTINs as 14 digits.
 *
 * Forms: a query names exactly what it asks for, plus the last body's form of an adopted standard ("DIN EN ISO 4762"
 * also asks for "ISO4762", the same text). A document is indexed under the same forms and also under each
 * standard's base without part or year, so the query "ISO 9001" finds a record holding "ISO 9001:2015", while the
 * query "ISO 9001:2015" does not claim an exact match with a record holding only "ISO 9001:2008".
 */

const SEPARATORS = /[\s\-/._:]+/g;
const MAX_IDENTIFIERS = 100;
/** Each string value is scanned up to this length; identifiers sit near the start of real values. */
const MAX_SCAN_CHARS = 4_000;
const MAX_DEPTH = 3;

const BODIES = 'DIN|ISO|EN|IEC|ASTM|ANSI|ASME|BS|NF|JIS|VDI|VDE|SAE|IEEE|UL|NEMA|GOST|CSA|AISI|ÖNORM|OENORM';
const STANDARD_SOURCE =
  `(?<![\\p{L}\\p{N}])((?:${BODIES})(?:[ \\t/-]+(?:${BODIES}))*)[ \\t-]*` +
  `([A-Z]?\\d{2,}[A-Z]?)((?:[-.]\\d+)*)(?::(\\d{2,4}))?(?![\\p{L}\\p{N}])`;
const STANDARD_WHOLE = new RegExp(`^${STANDARD_SOURCE}$`, 'iu');
const STANDARD_ANYWHERE = new RegExp(STANDARD_SOURCE, 'giu');
/**
 * What every match of STANDARD_ANYWHERE holds (its last body, then a number), without the lookarounds that make the
 * full pattern try every position of the text: most values fail this at a tenth of the cost, and skip the full scan.
 */
const STANDARD_HINT = new RegExp(`(?:${BODIES})[ \\t/-]*[A-Z]?\\d{2}`, 'iu');
const BODY_SPLIT = /[ \t/-]+/;

const SKU = /^[\p{L}\p{N}]+(?:[-/.][\p{L}\p{N}]+)*$/u;
const HAS_LETTER = /\p{L}/u;
const HAS_DIGIT = /\p{N}/u;
const MEASUREMENT =
  /^\d+(?:[.,]\d+)?(?:mm|cm|dm|m|km|µm|um|nm|in|ft|mg|g|kg|t|lb|lbs|oz|ml|cl|dl|l|v|kv|mv|w|kw|mw|a|ma|mah|wh|kwh|hz|khz|mhz|ghz|kb|mb|gb|tb|pcs|pc|st|x|h|min|s|ms|nm|bar|psi|pa|kpa|mpa|°c|c|f|k|%)$/i;
const GROUPED_DIGITS = /^\d[\d \t-]*\d$/;
/** A token of free text: what lies between the characters that end one (identifiers keep their inner `-` `/` `.`). */
const TOKEN = /[^\s,;()[\]{}<>"'|!?*+=#&@~^`\\]+/gu;

/** Uppercase, whitespace and separators removed; a GTIN with a valid check digit as its 14-digit form. */
export function normaliseIdentifier(raw: string): string {
  const compact = raw.toUpperCase().replace(SEPARATORS, '');
  return gtin14(compact) ?? compact;
}

/** The normalised identifier form(s) a query asks for when the whole (trimmed) query is one identifier. */
export function detectIdentifier(query: string): string[] | undefined {
  const trimmed = query.trim();
  if (!trimmed || trimmed.length > 80) return undefined;
  if (GROUPED_DIGITS.test(trimmed)) {
    const gtin = gtin14(trimmed.replace(/[ \t-]+/g, ''));
    return gtin ? [gtin] : undefined;
  }
  const standard = STANDARD_WHOLE.exec(trimmed);
  if (standard) return standardForms(standard, false);
  return isSku(trimmed) ? [normaliseIdentifier(trimmed)] : undefined;
}

/**
 * The base forms (without part numbers and year) of a query naming a standard's edition or part: "ISO 9001:2015" also
 * looks for "ISO 9001", below the edition itself. Empty for any other query.
 */
export function editionBases(query: string): string[] {
  const trimmed = query.trim();
  if (trimmed.length > 80) return [];
  const standard = STANDARD_WHOLE.exec(trimmed);
  if (!standard || !(standard[3] || standard[4])) return [];
  const exact = new Set(standardForms(standard, false));
  return standardForms(standard, true).filter((form) => !exact.has(form));
}

/** The normalised identifiers a document is indexed under: from its name and its collection_data values. */
export function identifiersOf(document: Pick<IndexDocument, 'name' | 'collection_data'>): string[] {
  const found = new Set<string>();
  const add = (forms: Iterable<string>) => {
    for (const form of forms) {
      if (found.size >= MAX_IDENTIFIERS) return;
      found.add(form);
    }
  };
  add(identifiersInText(document.name));
  const visit = (value: unknown, depth: number) => {
    if (found.size >= MAX_IDENTIFIERS) return;
    if (typeof value === 'string') add(identifiersInText(value));
    else if (typeof value === 'number') {
      const gtin = gtinOfNumber(value);
      if (gtin) add([gtin]);
    } else if (value && typeof value === 'object' && depth < MAX_DEPTH) {
      for (const v of Array.isArray(value) ? value : Object.values(value)) visit(v, depth + 1);
    }
  };
  visit(document.collection_data, 0);
  return [...found];
}

function identifiersInText(text: string): string[] {
  return identifierSpans(text).flatMap((span) => span.forms);
}

/** A stretch of text holding an identifier: where it starts and ends (string offsets) and its normalised forms. */
export interface IdentifierSpan {
  start: number;
  end: number;
  forms: string[];
}

/**
 * Where a text holds identifiers (its first MAX_SCAN_CHARS characters), with the forms a document is indexed under:
 * a whole value that is a grouped GTIN, standards, then tokens that are GTINs or part numbers. Highlights
 * (highlight.ts) find a query's identifiers in a result by it.
 */
export function identifierSpans(text: string): IdentifierSpan[] {
  const scanned = text.length > MAX_SCAN_CHARS ? text.slice(0, MAX_SCAN_CHARS) : text;
  const spans: IdentifierSpan[] = [];
  // Every kind of identifier holds a digit.
  if (!HAS_DIGIT.test(scanned)) return spans;
  // A whole short value may be a grouped GTIN ("4 006381 333931") that token splitting would break up.
  const whole = scanned.trim();
  if (scanned.length <= 40 && GROUPED_DIGITS.test(whole)) {
    const gtin = gtin14(whole.replace(/[ \t-]+/g, ''));
    const start = scanned.indexOf(whole);
    if (gtin) spans.push({ start, end: start + whole.length, forms: [gtin] });
  }
  if (STANDARD_HINT.test(scanned)) {
    for (const match of scanned.matchAll(STANDARD_ANYWHERE)) {
      spans.push({ start: match.index, end: match.index + match[0].length, forms: standardForms(match, true) });
    }
  }
  for (const raw of scanned.matchAll(TOKEN)) {
    // Separators at a token's ends are not part of it.
    const lead = /^[-/.:_]*/.exec(raw[0])![0].length;
    const token = raw[0].slice(lead).replace(/[-/.:_]+$/, '');
    if (token.length < 4) continue;
    const start = raw.index + lead;
    const span = (form: string) => spans.push({ start, end: start + token.length, forms: [form] });
    if (/^\d+$/.test(token)) {
      const gtin = gtin14(token);
      if (gtin) span(gtin);
    } else if (isSku(token)) span(normaliseIdentifier(token));
  }
  return spans;
}

function isSku(token: string): boolean {
  return (
    token.length >= 4 &&
    token.length <= 40 &&
    HAS_DIGIT.test(token) &&
    SKU.test(token) &&
    HAS_LETTER.test(token) &&
    !MEASUREMENT.test(token)
  );
}

/**
 * The forms of one matched standard. Query: the full designation, and the last body's designation when bodies are
 * chained. Document: also both without part numbers and year.
 */
function standardForms(match: RegExpExecArray | RegExpMatchArray, forDocument: boolean): string[] {
  const bodies = match[1]!.toUpperCase().split(BODY_SPLIT);
  const number = match[2]!.toUpperCase();
  const suffix = (match[3] ?? '') + (match[4] ?? '');
  const chained = bodies.join('');
  const last = bodies[bodies.length - 1]!;
  const forms = [chained + number + suffix, last + number + suffix];
  if (forDocument && suffix) forms.push(chained + number, last + number);
  return [...new Set(forms.map(normaliseIdentifier))];
}

/** The 14-digit GTIN when `digits` is an EAN-8, UPC-A, EAN-13 or GTIN-14 with a valid check digit. */
function gtin14(digits: string): string | undefined {
  if (!/^\d+$/.test(digits)) return undefined;
  if (digits.length !== 8 && digits.length !== 12 && digits.length !== 13 && digits.length !== 14) return undefined;
  const padded = digits.padStart(14, '0');
  return validCheckDigit(padded) && !/^0+$/.test(padded) ? padded : undefined;
}

/** A number holding a GTIN whose leading zeros were dropped (7 to 14 digits). */
function gtinOfNumber(value: number): string | undefined {
  if (!Number.isSafeInteger(value) || value < 1_000_000 || value > 99_999_999_999_999) return undefined;
  const padded = String(value).padStart(14, '0');
  return validCheckDigit(padded) ? padded : undefined;
}

function validCheckDigit(digits: string): boolean {
  let sum = 0;
  // Weights alternate 3, 1, 3, ... leftwards from the digit next to the check digit.
  for (let i = digits.length - 2, weight = 3; i >= 0; i--, weight = 4 - weight) sum += Number(digits[i]) * weight;
  return (10 - (sum % 10)) % 10 === Number(digits[digits.length - 1]);
}
