import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { ERRORS, type HttpError } from './errors';

/**
 * The Content-Encodings a request body may be sent in. A compressed body is inflated as it is read, and every body
 * limit counts the inflated bytes, so a small compressed body cannot grow past the limit of the route it is sent to.
 */
export const BODY_ENCODINGS = ['identity', 'gzip', 'deflate', 'br'] as const;
export type BodyEncoding = (typeof BODY_ENCODINGS)[number];

/** Header values are echoed in answers; this much of one is enough to recognise it. */
const ECHO_CHARS = 100;

/**
 * The request's Content-Encoding, identity when it has none. Anything outside `accepted` (another coding, or more than
 * one) answers 415 before a byte of the body is read.
 */
export function bodyEncodingOf(req: IncomingMessage, accepted: readonly BodyEncoding[] = BODY_ENCODINGS): BodyEncoding {
  const header = req.headers['content-encoding'];
  const value = (header ?? '').trim().toLowerCase() || 'identity';
  const found = accepted.find((e) => e === value);
  if (found) return found;
  const others = accepted.filter((e) => e !== 'identity');
  const allowed = others.length > 0 ? `send it uncompressed or as ${others.join(', ')}` : 'send it uncompressed';
  throw ERRORS.unsupportedMediaType(`Content-Encoding '${String(header).slice(0, ECHO_CHARS)}' is not supported for this request body; ${allowed}`);
}

/** The answer for a body whose bytes are not what its Content-Encoding says they are. */
export function undecodableBody(encoding: BodyEncoding): HttpError {
  return ERRORS.badRequest(`The request body is not valid ${encoding} data (Content-Encoding: ${encoding})`);
}

/**
 * Inflated output comes in pieces of this size: zlib's default of 16 KB costs a thread-pool round trip per piece, which
 * makes inflating tens of megabytes (a compressed body refused only at its inflated limit) two to three times slower.
 */
const INFLATE_CHUNK_BYTES = 256 * 1024;

function inflater(encoding: Exclude<BodyEncoding, 'identity'>): Transform {
  const options = { chunkSize: INFLATE_CHUNK_BYTES };
  if (encoding === 'gzip') return createGunzip(options);
  // Content-Encoding deflate is the zlib format (RFC 9110), as body-parser reads it for the JSON routes.
  if (encoding === 'deflate') return createInflate(options);
  return createBrotliDecompress(options);
}

/**
 * The body's bytes as sent before the encoding was applied, inflated as they are read: the request itself for
 * identity. Bytes the encoding cannot read fail the stream with undecodableBody (400), including a body that ends in
 * the middle of its compressed data. Bounding the inflated size is the reader's business (it knows its limit).
 */
export function decodedBody(req: Readable, encoding: BodyEncoding): Readable {
  if (encoding === 'identity') return req;
  const inflate = inflater(encoding);
  const out = new PassThrough();
  inflate.on('error', () => out.destroy(undecodableBody(encoding)));
  req.on('error', (err) => out.destroy(err));
  // A reader that stops early stops the inflating too; the request's unread rest is left to whoever answers.
  out.on('close', () => {
    req.unpipe(inflate);
    inflate.destroy();
  });
  req.pipe(inflate).pipe(out);
  return out;
}
