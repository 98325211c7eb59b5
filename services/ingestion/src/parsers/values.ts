/** The longest text kept of an unreadable item, so a dead letter stays small whatever was uploaded. */
export const RAW_TEXT_LIMIT = 1000;

// A plain decimal: optional minus, no leading zero before other digits, optional fraction; no exponent, no plus sign.
const PLAIN_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;
// Whole numbers this long are identifiers (UPC-A has 12 digits, EAN-13 13, GTIN-14 14), not quantities.
const IDENTIFIER_DIGITS = 12;
// Beyond 15 significant digits a double no longer holds every decimal exactly.
const EXACT_DIGITS = 15;

/**
 * The typed value of a text cell (CSV fields, XML text and attributes): 'true'/'false' in any case become booleans, plain
 * decimals become numbers, anything else stays the string. Identifiers stay strings even when they are all digits: a
 * leading zero ('0042'), 12 or more digits in a whole number (EAN '4006381333931'), or more than 15 significant digits.
 * The text is expected trimmed. Numbers with a decimal comma or thousands separators are number-format.ts's to read.
 */
export function castScalar(text: string): string | number | boolean {
  const lower = text.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (!PLAIN_NUMBER.test(text)) return text;
  const unsigned = text.startsWith('-') ? text.slice(1) : text;
  const dot = unsigned.indexOf('.');
  if (dot === -1 && unsigned.length >= IDENTIFIER_DIGITS) return text;
  const significant = unsigned.replace('.', '').replace(/^0+/, '');
  if (significant.length > EXACT_DIGITS) return text;
  return Number(text);
}

/** Sets a field from uploaded data; a key named `__proto__` becomes an own field instead of replacing the prototype. */
export function setField(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

export function truncate(text: string, limit = RAW_TEXT_LIMIT): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
