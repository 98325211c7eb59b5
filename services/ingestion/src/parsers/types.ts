import type { Readable } from 'node:stream';

export type FileFormat = 'csv' | 'json' | 'ndjson' | 'xml' | 'pdf';

/**
 * One item read from an upload, in file order (index counts from 0 across every item, good or bad): the raw object of
 * one record, or why that item could not be read (a dead letter; the rest of the upload goes on).
 */
export type ParsedItem =
  | { index: number; ok: true; data: Record<string, unknown> }
  | { index: number; ok: false; error: string; raw: unknown };

export interface ParseOptions {
  /** CSV: the column used as the record name (default `name`); parsers keep every column, mapping happens later. */
  nameColumn?: string;
  /** XML: the element that makes a record; without it, the repeated children of the root element do. */
  recordTag?: string;
  /** PDF: the uploaded file's name, a last resort for the record name. */
  fileName?: string;
}

/** Reads records from a byte stream without holding the whole file in memory (PDF excepted: pdf.js needs it all). */
export type Parser = (input: Readable, opts: ParseOptions) => AsyncIterable<ParsedItem>;

/** The file is not of the kind it claims, or cannot be parsed at all: answered 422 naming the problem. */
export class UnparseableFileError extends Error {
  override name = 'UnparseableFileError';
}

/**
 * What one record read from a file may hold, so a parser never keeps more than this of it: about 1 MB of text (keys,
 * values and markup, counted in characters). A larger JSON or XML record is a dead letter whose rest is skipped without
 * being kept; a CSV row is refused with the file (csv.ts).
 */
export const MAX_RECORD_CHARACTERS = 1024 * 1024;
/** Levels of nesting below a record's own (JSON object or XML element): deeper records are dead letters. */
export const MAX_RECORD_DEPTH = 64;
/** Levels of nesting anywhere in a JSON or XML file: a deeper file is unparseable (the tokenizer holds every level). */
export const MAX_FILE_DEPTH = 100;
