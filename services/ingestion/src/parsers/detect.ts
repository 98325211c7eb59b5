import { consistentDelimiter } from './delimited';
import type { FileFormat } from './types';

const BY_EXTENSION: Record<string, FileFormat> = {
  csv: 'csv',
  tsv: 'csv',
  json: 'json',
  ndjson: 'ndjson',
  jsonl: 'ndjson',
  xml: 'xml',
  pdf: 'pdf',
};

const BY_MIME_TYPE: Record<string, FileFormat> = {
  'text/csv': 'csv',
  'application/csv': 'csv',
  'text/tab-separated-values': 'csv',
  'application/vnd.ms-excel': 'csv',
  'application/json': 'json',
  'text/json': 'json',
  'application/x-ndjson': 'ndjson',
  'application/ndjson': 'ndjson',
  'application/jsonl': 'ndjson',
  'application/x-jsonlines': 'ndjson',
  'application/jsonlines': 'ndjson',
  'application/xml': 'xml',
  'text/xml': 'xml',
  'application/pdf': 'pdf',
};

/**
 * The format of an upload: by file extension; else by MIME type (parameters ignored, any `+xml` or `+json` type
 * counts); else by the first bytes, decoded as UTF-8 or, after a byte order mark, UTF-16 (Excel's "Unicode Text" is
 * tab-separated UTF-16LE named `.txt`): `%PDF-` within the first kilobyte is PDF; after white space, `<` is XML, `[` is
 * JSON, `{` is NDJSON when the first line is a whole JSON object and the next non-empty line starts another `{`, else
 * JSON; other text is CSV when it is delimited text (consistentDelimiter). Binary or unrecognised content: undefined.
 */
export function detectFormat(fileName: string, mimeType: string, head: Buffer): FileFormat | undefined {
  const extension = /\.([A-Za-z0-9]+)$/.exec(fileName.trim())?.[1]?.toLowerCase();
  if (extension && BY_EXTENSION[extension]) return BY_EXTENSION[extension];

  const mime = mimeType.split(';')[0]!.trim().toLowerCase();
  if (BY_MIME_TYPE[mime]) return BY_MIME_TYPE[mime];
  if (mime.endsWith('+xml')) return 'xml';
  if (mime.endsWith('+json')) return 'json';

  return sniff(head);
}

function sniff(head: Buffer): FileFormat | undefined {
  if (head.subarray(0, 1024).includes('%PDF-')) return 'pdf';
  const decoded = textOf(head);
  if (decoded === undefined) return undefined;
  const text = decoded.replace(/^\s+/, '');
  const first = text[0];
  if (first === '<') return 'xml';
  if (first === '[') return 'json';
  if (first === '{') return isNdjson(text) ? 'ndjson' : 'json';
  return consistentDelimiter(text) === undefined ? undefined : 'csv';
}

/** The text of the first bytes without their byte order mark, or undefined for binary data (a NUL without UTF-16). */
function textOf(head: Buffer): string | undefined {
  // A character cut at the end of the head decodes to one replacement character, which harms nothing here.
  if (head[0] === 0xff && head[1] === 0xfe) return new TextDecoder('utf-16le').decode(head.subarray(2));
  if (head[0] === 0xfe && head[1] === 0xff) return new TextDecoder('utf-16be').decode(head.subarray(2));
  const bytes = head.subarray(head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0);
  return bytes.includes(0) ? undefined : bytes.toString('utf8');
}

function isNdjson(text: string): boolean {
  const lines = text.split('\n');
  try {
    const first: unknown = JSON.parse(lines[0]!);
    if (typeof first !== 'object' || first === null || Array.isArray(first)) return false;
  } catch {
    return false;
  }
  const next = lines.slice(1).find((line) => line.trim() !== '');
  return next?.trimStart().startsWith('{') ?? false;
}
