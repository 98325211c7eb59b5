import express, { type Request, type RequestHandler, type Response } from 'express';
import { bodyParserError, jsonDecodeError } from '@trove/platform';

export type { Request, Response, Router } from 'express';

/**
 * Refuses a request whose declared length is over the limit before reading a byte of its body. The connection is
 * closed after the answer, as the client may still be sending a body nobody will read.
 */
export function refuseLargerThan(maxBytes: () => number, tooLarge: (max: number) => Error): RequestHandler {
  return (req, res, next) => {
    const declared = Number(req.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes()) {
      res.setHeader('Connection', 'close');
      return next(tooLarge(maxBytes()));
    }
    next();
  };
}

/** Reads the raw body bytes whatever the Content-Type (routes that hash or sign the exact bytes). Empty when none. */
export function readRawBody(req: Request, res: Response, limit: number): Promise<Buffer> {
  const parse = express.raw({ type: () => true, limit });
  return new Promise((resolve, reject) => {
    parse(req, res, (err?: unknown) => {
      // The rest of an over-limit body is not read: close the connection after the answer rather than drain it.
      if ((err as { type?: string } | undefined)?.type === 'entity.too.large') res.setHeader('Connection', 'close');
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
