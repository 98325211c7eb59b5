import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import type { Request, RequestHandler, Response } from 'express';
import { BODY_ENCODINGS, bodyEncodingOf, type BodyEncoding } from './body';

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
 * Guards a route's body before its handler reads it (routes that read their own body as it arrives: uploads):
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
  // Node closes the connection after an answer whose headers say so. While the body of a client that asked to close is
  // still coming, the answer's headers are set to keep the connection open; once the whole body has been read, if the
  // answer has not gone out yet, they are set back to what Node would have sent (Connection: close), and the
  // connection closes after it as asked.
  let heldOpen = clientClose && !req.complete;
  if (heldOpen) {
    res.setHeader('Connection', 'keep-alive');
    req.once('end', () => {
      if (res.headersSent || res.getHeader('Connection') !== 'keep-alive') return;
      res.setHeader('Connection', 'close');
      heldOpen = false;
    });
  }
  const closeOnceRead = () => {
    if (req.readableEnded) req.socket.end();
    else req.once('end', () => req.socket.end());
  };
  res.once('finish', () => {
    if (req.complete) {
      // The answer went out holding the connection open and the whole body has come since (or had come unread): what
      // is left of it is thrown away and the connection closed, as the client asked.
      if (heldOpen && !req.socket.destroyed) {
        req.unpipe();
        req.resume();
        closeOnceRead();
      }
      return;
    }
    if (req.destroyed) return;
    // Whatever still reads the body (a parser given up on, an inflater) lets go of it, and the bytes go nowhere.
    req.unpipe();
    req.resume();
    const drop = setTimeout(() => req.socket.destroy(), LINGER_MS).unref();
    req.once('close', () => clearTimeout(drop));
    if (clientClose) closeOnceRead();
  });
}

/** Counts and hashes the bytes that pass, and fails with `tooLarge` as soon as there are more than the limit. */
export class ByteMeter extends Transform {
  private bytes = 0;
  private readonly sha: Hash = createHash('sha256');

  constructor(
    private readonly maxBytes: number,
    private readonly tooLarge: () => Error,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) return cb(this.tooLarge());
    this.sha.update(chunk);
    cb(null, chunk);
  }

  /** `sha256:<hex>` of the bytes that passed; call once, after the end. */
  digest(): string {
    return `sha256:${this.sha.digest('hex')}`;
  }
}
