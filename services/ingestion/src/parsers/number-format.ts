import { castScalar } from './values';

/** The character a file writes before a number's fraction; the other one may group its thousands. */
export type DecimalSeparator = '.' | ',';

/** The typed value of one trimmed cell of a given column (its index in the header). */
export type CellReader = (text: string, column: number) => string | number | boolean;

// One separator between digits: a decimal, or a single thousands group (`2.500`) when the fraction has three digits.
const ONE_SEPARATOR = /^(\d+)([.,])(\d+)$/;
// A first group of one to three digits without a leading zero, as thousands are grouped.
const FIRST_GROUP = /^[1-9]\d{0,2}$/;
const GROUPED: Record<DecimalSeparator, RegExp> = {
  ',': /^[1-9]\d{0,2}(?:\.\d{3})+(?:,\d+)?$/,
  '.': /^[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?$/,
};
const WITH_DECIMAL: Record<DecimalSeparator, RegExp> = {
  ',': /^\d+(?:,\d+)?$/,
  '.': /^\d+(?:\.\d+)?$/,
};

/**
 * The decimal separator a number written as `text` can only have been written with, or undefined when the text says
 * nothing (not a number, a whole number) or could be read either way: one separator followed by exactly three digits
 * after one to three digits (`2.500`, `1,234`) is a decimal or a thousands group.
 */
export function separatorShownBy(text: string): DecimalSeparator | undefined {
  const unsigned = text.startsWith('-') ? text.slice(1) : text;
  const one = ONE_SEPARATOR.exec(unsigned);
  if (one) {
    const [, whole, separator, fraction] = one;
    return fraction!.length === 3 && FIRST_GROUP.test(whole!) ? undefined : (separator as DecimalSeparator);
  }
  if (GROUPED[','].test(unsigned)) return ',';
  if (GROUPED['.'].test(unsigned)) return '.';
  return undefined;
}

/**
 * A number written with `decimal` as its decimal separator and, optionally, the other separator grouping its thousands
 * in threes (`1.234,56`, `2.500` with a decimal comma; `1,234.56` with a decimal point), typed by castScalar so that
 * identifiers stay text; any other text with a `.` or `,` stays as it is. Booleans and plain whole numbers are read as
 * castScalar reads them.
 */
export function readNumber(text: string, decimal: DecimalSeparator): string | number | boolean {
  if (!text.includes('.') && !text.includes(',')) return castScalar(text);
  const negative = text.startsWith('-');
  const unsigned = negative ? text.slice(1) : text;
  let digits: string;
  if (WITH_DECIMAL[decimal].test(unsigned)) digits = unsigned.replace(decimal, '.');
  else if (GROUPED[decimal].test(unsigned)) digits = unsigned.replace(decimal === ',' ? /\./g : /,/g, '').replace(decimal, '.');
  else return text;
  const value = castScalar(negative ? `-${digits}` : digits);
  return typeof value === 'number' ? value : text;
}

/** A cell read without knowing the column's separator: only a number that shows its own separator is read as one. */
function readAlone(text: string): string | number | boolean {
  if (!text.includes('.') && !text.includes(',')) return castScalar(text);
  const shown = separatorShownBy(text);
  return shown ? readNumber(text, shown) : text;
}

/**
 * How the cells of a `;`- or tab-delimited file are typed, decided from a sample of its first rows (the fields of each,
 * in header order). A column's decimal separator is the one its sampled numbers show (separatorShownBy); a column whose
 * sampled numbers show none takes the one the file's numbers show, when they all show the same one. With a separator
 * decided, the other one is read as a thousands separator in groups of three (a decimal comma makes `2.500` 2500), and
 * numbers written otherwise stay text. A column whose numbers show both, or with nothing to go by, reads each number on
 * its own: `0,5` and `1.5` are numbers, `2.500` stays text. A number's magnitude is never guessed.
 */
export function numberReader(sample: Iterable<readonly string[]>, columnCount: number): CellReader {
  const shown = Array.from({ length: columnCount }, () => new Set<DecimalSeparator>());
  const inFile = new Set<DecimalSeparator>();
  for (const fields of sample) {
    for (let i = 0; i < columnCount && i < fields.length; i++) {
      const separator = separatorShownBy(fields[i]!.trim());
      if (separator) {
        shown[i]!.add(separator);
        inFile.add(separator);
      }
    }
  }
  const fileSeparator = inFile.size === 1 ? [...inFile][0] : undefined;
  const decided = shown.map((set) => (set.size === 1 ? [...set][0] : set.size === 0 ? fileSeparator : undefined));
  return (text, column) => {
    const decimal = decided[column];
    return decimal ? readNumber(text, decimal) : readAlone(text);
  };
}
