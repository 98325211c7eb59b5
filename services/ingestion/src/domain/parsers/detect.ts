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
 * counts); else by the first bytes: `%PDF-` within the first kilobyte is PDF; after a byte order mark and white space,
 * `<` is XML, `[` is JSON, `{` is NDJSON when the first line is a whole JSON object and the next non-empty line starts
 * another `{`, else JSON; other text is CSV when its first line holds a `,`, `;` or tab. Binary or unrecognised
 * content: undefined.
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
  const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  const bytes = head.subarray(bom);
  if (bytes.includes(0)) return undefined;
  // A multi-byte character cut at the end of the head decodes to one replacement character, which harms nothing here.
  const text = bytes.toString('utf8').replace(/^\s+/, '');
  const first = text[0];
  if (first === '<') return 'xml';
  if (first === '[') return 'json';
  if (first === '{') return isNdjson(text) ? 'ndjson' : 'json';
  const firstLine = text.split('\n', 1)[0] ?? '';
  return /[,;\t]/.test(firstLine) ? 'csv' : undefined;
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
