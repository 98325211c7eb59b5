import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Request } from 'express';
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

/** The media types a JSON body may be sent as. */
export const JSON_TYPES = ['application/json', 'application/*+json'];

/** The methods whose body a route reads; a GET's or DELETE's body is never read, whatever its type. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** Requests whose body the JSON parser left unread for its media type, with the answer a JSON route gives them. */
const bodiesNotJson = new WeakMap<Request, HttpError>();

/**
 * Notes a request whose body the JSON parser leaves unread because it came as another media type (or none), with the
 * 415 saying what to send (docs/behaviour/errors-and-validation.md): a route that reads a JSON body answers it
 * (refuseBodyNotJson) instead of taking the body for absent and answering 422 for every required field. A route that
 * reads other media types (declared in `consumes`) never sees it. A body of no bytes is no body.
 */
export function noteBodyNotJson(req: Request): void {
  if (!BODY_METHODS.has(req.method) || req.is(JSON_TYPES) !== false || req.get('content-length') === '0') return;
  const type = req.get('content-type')?.split(';')[0]?.trim().slice(0, ECHO_CHARS);
  const sent = type ? `was sent as ${type}` : 'was sent without a Content-Type';
  // curl -d sends form encoding unless told otherwise: the commonest way here.
  const curl = type === 'application/x-www-form-urlencoded' ? " (what curl -d sends unless given -H 'Content-Type: application/json')" : '';
  bodiesNotJson.set(req, ERRORS.unsupportedMediaType(`This route reads a JSON body, and this one ${sent}${curl}; send it with Content-Type: application/json`));
}

/** The 415 noteBodyNotJson noted for the request, if any. */
export function bodyNotJson(req: Request): HttpError | undefined {
  return bodiesNotJson.get(req);
}
