import express, { type Request, type RequestHandler, type Response } from 'express';
import { BODY_ENCODINGS, bodyEncodingOf, bodyParserError, jsonDecodeError, type BodyEncoding } from '@trove/platform';

export type { Request, Response, Router } from 'express';

/** How long the rest of a body is read and thrown away after an early answer before the connection is dropped. */
const LINGER_MS = 30_000;

export interface BodyGuardOptions {
  /** The most bytes the body may hold; a compressed body is held to it once inflated, by its reader. */
  maxBytes: () => number;
  tooLarge: (max: number) => Error;
  /** The Content-Encodings the route reads (415 for any other); all of BODY_ENCODINGS unless said. */
  encodings?: readonly BodyEncoding[];
}

/**
 * Guards an upload route's body before its handler reads it:
 * - a Content-Encoding the route does not read answers 415, and a declared length over the limit 413, before a byte
 *   of the body is read;
 * - whatever the answer, a body not read to its end when the answer has gone out is read on and thrown away, never
 *   held, so the connection is clean for the next request on it (a gateway's pooled connection otherwise hands the
 *   next caller, perhaps another tenant, a connection whose server still waits for the last body's unread bytes).
 *   Closing the connection instead while the client (or the gateway) is still sending resets it, and the client loses
 *   the answer with it. A client that goes on sending for more than LINGER_MS after the answer has its connection
 *   dropped.
 */
export function guardBody(opts: BodyGuardOptions): RequestHandler {
  const encodings = opts.encodings ?? BODY_ENCODINGS;
  return (req, res, next) => {
    res.once('finish', () => drainRest(req));
    try {
      bodyEncodingOf(req, encodings);
    } catch (err) {
      return next(err);
    }
    const declared = Number(req.get('content-length'));
    if (Number.isFinite(declared) && declared > opts.maxBytes()) return next(opts.tooLarge(opts.maxBytes()));
    next();
  };
}

/** Reads and throws away what is left of a request's body once its answer has gone out (see guardBody). */
function drainRest(req: Request): void {
  // Complete: every byte of the body has left the connection, whatever a reader left unread of it.
  if (req.complete || req.destroyed) return;
  // Whatever still reads the body (a parser given up on, an inflater) lets go of it, and the bytes go nowhere.
  req.unpipe();
  req.resume();
  const drop = setTimeout(() => req.socket.destroy(), LINGER_MS).unref();
  req.once('close', () => clearTimeout(drop));
}

/**
 * Reads the raw body bytes whatever the Content-Type (routes that hash or sign the exact bytes). Empty when none. A
 * compressed body is inflated first and `limit` counts the inflated bytes: the bytes hashed and signed are the body as
 * it was before compression.
 */
export function readRawBody(req: Request, res: Response, limit: number): Promise<Buffer> {
  const parse = express.raw({ type: () => true, limit });
  const encoding = bodyEncodingOf(req);
  return new Promise((resolve, reject) => {
    parse(req, res, (err?: unknown) => {
      if (err) return reject(bodyParserError(err, encoding));
      resolve(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
    });
  });
}

/** Parses JSON body bytes as the platform's parser would, with the same 422 for broken JSON; empty is undefined. */
export function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined;
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw jsonDecodeError((err as Error).message);
  }
}
