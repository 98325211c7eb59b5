import { parseCsv } from './csv';
import { parseJson } from './json';
import { parseNdjson } from './ndjson';
import { parsePdf } from './pdf';
import type { FileFormat, Parser } from './types';
import { parseXml } from './xml';

export { detectFormat } from './detect';
export { parseCsv, parseJson, parseNdjson, parsePdf, parseXml };
export * from './types';

const PARSERS: Record<FileFormat, Parser> = {
  csv: parseCsv,
  json: parseJson,
  ndjson: parseNdjson,
  xml: parseXml,
  pdf: parsePdf,
};

export function parserFor(format: FileFormat): Parser {
  return PARSERS[format];
}
