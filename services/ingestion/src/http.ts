import express, { type Request, type RequestHandler, type Response } from 'express';
import { bodyParserError, jsonDecodeError } from '@trove/platform';

export type { Request, Response, Router } from 'express';

/** How long the rest of a refused body is read and thrown away after the answer before the connection is dropped. */
const LINGER_MS = 30_000;

/**
 * Refuses a request whose declared length is over the limit before reading a byte of its body. The rest of the body
 * is then read and thrown away as it arrives (Node's server does that for a request nobody read), never held: closing
 * the connection while the client (or the gateway) is still sending resets it, and the client loses the 413 with it.
 * A client that goes on sending for more than LINGER_MS after the answer has its connection dropped.
 */
export function refuseLargerThan(maxBytes: () => number, tooLarge: (max: number) => Error): RequestHandler {
  return (req, res, next) => {
    const declared = Number(req.get('content-length'));
    if (!Number.isFinite(declared) || declared <= maxBytes()) return next();
    res.once('finish', () => {
      if (req.complete) return;
      const drop = setTimeout(() => req.socket.destroy(), LINGER_MS).unref();
      req.once('close', () => clearTimeout(drop));
    });
    next(tooLarge(maxBytes()));
  };
}

/** Reads the raw body bytes whatever the Content-Type (routes that hash or sign the exact bytes). Empty when none. */
export function readRawBody(req: Request, res: Response, limit: number): Promise<Buffer> {
  const parse = express.raw({ type: () => true, limit });
  return new Promise((resolve, reject) => {
    parse(req, res, (err?: unknown) => {
      // The rest of an over-limit body is thrown away as it arrives (see refuseLargerThan).
      if (err) return reject(bodyParserError(err));
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
