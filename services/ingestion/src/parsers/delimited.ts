/** The delimiters of delimited text, in order of preference when two fit equally well. */
export const DELIMITERS = [',', ';', '\t'];

// How much of the start of a text tells its delimiter: this many records, within this many characters.
const SAMPLE_RECORDS = 20;
export const DELIMITER_SAMPLE_CHARACTERS = 64 * 1024;

/**
 * The delimiter of delimited text, told from its first records (up to 20 non-empty lines, quoted fields may hold line
 * breaks, within its first 64K characters; a last line that may have been cut there is left out): a tab, `;` or `,`
 * for which every record holds as many fields as the first, at least two, or more whose extra fields are empty, as
 * spreadsheets write them. Where several fit, the one making the most fields. Undefined when none does: prose, or
 * rows of uneven length.
 */
export function consistentDelimiter(text: string): string | undefined {
  const sample = text.slice(0, DELIMITER_SAMPLE_CHARACTERS);
  let best: { delimiter: string; width: number } | undefined;
  for (const delimiter of DELIMITERS) {
    const records = recordsOf(sample, delimiter);
    const width = records[0]?.length ?? 0;
    const even = records.every(
      (fields) => fields.length === width || (fields.length > width && fields.slice(width).every((f) => f.trim() === '')),
    );
    if (width >= 2 && even && width > (best?.width ?? 0)) best = { delimiter, width };
  }
  return best?.delimiter;
}

function recordsOf(text: string, delimiter: string): string[][] {
  const records: string[][] = [];
  let fields: string[] = [];
  let field = '';
  let inQuotes = false;
  for (let i = 0; i < text.length && records.length < SAMPLE_RECORDS; i++) {
    const char = text[i]!;
    if (char === '"') inQuotes = !inQuotes;
    else if (inQuotes) field += char;
    else if (char === delimiter) {
      fields.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      fields.push(field);
      if (fields.length > 1 || fields[0]!.trim() !== '') records.push(fields);
      fields = [];
      field = '';
    } else field += char;
  }
  // Text without a line break is one record; otherwise what follows the last one may be cut short.
  if (records.length === 0 && !inQuotes) records.push([...fields, field]);
  return records;
}
