import express, { type Request, type RequestHandler, type Response } from 'express';
import type { Endpoint } from '@trove/contracts';
import { BODY_ENCODINGS, ERRORS, bodyEncodingOf, bodyParserError, decodedBody, jsonDecodeError, type BodyEncoding } from '@trove/platform';

export type { Request, Response } from 'express';

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
 * - whatever the answer, a body not read to its end when the answer goes out is read on and thrown away, never held,
 *   so the connection is clean for the next request on it (a gateway's pooled connection otherwise hands the next
 *   caller, perhaps another tenant, a connection whose server still waits for the last body's unread bytes);
 * - such an answer never closes the connection while the client is still sending, not even when the client asked
 *   for that (Connection: close): closing with unread bytes resets the connection, and the client, still writing,
 *   loses the answer with it (it sees EPIPE, and a gateway answers 503 for a request that was refused). The
 *   connection is closed once the body has been read, if the client asked. A client that goes on sending for more
 *   than LINGER_MS after the answer has its connection dropped.
 */
export function guardBody(opts: BodyGuardOptions): RequestHandler {
  const encodings = opts.encodings ?? BODY_ENCODINGS;
  return (req, res, next) => {
    answerWithoutClosing(req, res);
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

/** Sees to an answer that goes out before the request's body has been read to its end (see guardBody). */
function answerWithoutClosing(req: Request, res: Response): void {
  const clientClose = !res.shouldKeepAlive;
  const writeHead = res.writeHead;
  // The only moment the connection's fate can still be changed: Node closes it after an answer whose headers say so.
  res.writeHead = function (this: Response, ...args: Parameters<Response['writeHead']>) {
    if (!req.complete && clientClose) this.setHeader('Connection', 'keep-alive');
    return writeHead.apply(this, args);
  } as Response['writeHead'];
  res.once('finish', () => {
    if (req.complete || req.destroyed) return;
    // Whatever still reads the body (a parser given up on, an inflater) lets go of it, and the bytes go nowhere.
    req.unpipe();
    req.resume();
    const drop = setTimeout(() => req.socket.destroy(), LINGER_MS).unref();
    req.once('close', () => clearTimeout(drop));
    if (clientClose) req.once('end', () => req.socket.end());
  });
}

/**
 * Reads the raw body bytes whatever the Content-Type (routes that hash or sign the exact bytes). Empty when none. A
 * compressed body is inflated first and `limit` counts the inflated bytes: the bytes hashed and signed are the body as
 * it was before compression.
 */
export async function readRawBody(req: Request, res: Response, limit: number): Promise<Buffer> {
  const encoding = bodyEncodingOf(req);
  if (encoding === 'identity') {
    const parse = express.raw({ type: () => true, limit });
    return new Promise((resolve, reject) => {
      parse(req, res, (err?: unknown) => {
        if (err) return reject(bodyParserError(err, encoding));
        resolve(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
      });
    });
  }
  // Compressed: inflated in large pieces (decodedBody) and counted as they come, so a body that inflates past the
  // limit is refused as soon as it crosses it.
  const body = decodedBody(req, encoding);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      throw ERRORS.payloadTooLarge(`Request body exceeds the limit of ${limit} bytes once inflated (Content-Encoding: ${encoding})`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
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

/** Answers a handler registered with `handle` with its endpoint's declared success status, as platform's `serve` does. */
export function answer(res: Response, e: Pick<Endpoint, 'status'>, body: unknown): void {
  res.status(e.status ?? 200).json(body);
}
