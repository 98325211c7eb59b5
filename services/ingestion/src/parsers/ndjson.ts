import { decodeText } from './decode';
import type { ParsedItem, Parser } from './types';
import { errorMessage, RAW_TEXT_LIMIT, truncate } from './values';

/**
 * A line longer than this (1 MB of ASCII) is reported and skipped rather than held in memory. It bounds what one line
 * costs to hold and parse, in a file upload and in the stream alike; a record's own text fields stay far below it
 * (a description holds at most 50,000 characters).
 */
export const MAX_LINE_CHARS = 1024 * 1024;
const MAX_LINE_TEXT = '1 MB (1,048,576 characters)';

/**
 * Newline-delimited JSON, one object per line, split as the text streams in.
 *
 * - Lines end with \n (a \r before it is dropped); blank lines are skipped; a byte order mark is dropped.
 * - A line that is not valid JSON, or is JSON but not an object, is one {ok: false} item naming its line number, with
 *   the line's text (first 1,000 characters) as raw. A line over MAX_LINE_CHARS is reported the same way without being
 *   held whole, and so is a line JSON.parse fails on in any other way (a RangeError included): the next line reads on.
 * - The only UnparseableFileError is a binary file. An empty file yields nothing: an empty stream is a valid NDJSON
 *   stream.
 */
export const parseNdjson: Parser = (input) => ndjsonItems(decodeText(input, { kind: 'NDJSON' }));

async function* ndjsonItems(text: AsyncIterable<string>): AsyncGenerator<ParsedItem> {
  let index = 0;
  let lineNumber = 0;
  let pending = '';
  // While a line is over the limit: its first characters, kept for the dead letter, until its end arrives.
  let overlong: string | undefined;

  const finish = (line: string): ParsedItem | undefined => {
    lineNumber++;
    if (overlong !== undefined || line.length > MAX_LINE_CHARS) {
      const raw = overlong ?? line.slice(0, RAW_TEXT_LIMIT);
      overlong = undefined;
      return { index: index++, ok: false, error: `line ${lineNumber}: longer than ${MAX_LINE_TEXT}`, raw: `${raw}…` };
    }
    return readLine(line.endsWith('\r') ? line.slice(0, -1) : line, lineNumber, () => index++);
  };

  for await (const chunk of text) {
    let start = 0;
    for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
      const line = pending + chunk.slice(start, end);
      pending = '';
      start = end + 1;
      const item = finish(line);
      if (item) yield item;
    }
    const tail = chunk.slice(start);
    if (overlong !== undefined) continue;
    pending += tail;
    if (pending.length > MAX_LINE_CHARS) {
      overlong = pending.slice(0, RAW_TEXT_LIMIT);
      pending = '';
    }
  }
  if (pending !== '' || overlong !== undefined) {
    const item = finish(pending);
    if (item) yield item;
  }
}

function readLine(line: string, lineNumber: number, nextIndex: () => number): ParsedItem | undefined {
  if (line.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { index: nextIndex(), ok: false, error: `line ${lineNumber}: invalid JSON (${errorMessage(error)})`, raw: truncate(line) };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return { index: nextIndex(), ok: false, error: `line ${lineNumber}: ${kind}, not a JSON object`, raw: truncate(line) };
  }
  return { index: nextIndex(), ok: true, data: value as Record<string, unknown> };
}
