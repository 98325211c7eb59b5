import express, { type Request, type Response } from 'express';
import type { Endpoint } from '@trove/contracts';
import { ERRORS, bodyEncodingOf, bodyParserError, decodedBody, jsonDecodeError } from '@trove/platform';

export type { Request, Response } from 'express';

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

/** A byte limit in words for answers: `4 MB`, `1.5 MB`, `512 KB`. */
export function formatBytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  if (mb >= 1) return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
  return `${Math.ceil(bytes / 1024)} KB`;
}

/**
 * The asynchronous answer of an upload taken with `Prefer: respond-async` (RFC 7240): 202 with what the upload is, and
 * Preference-Applied saying the preference was honoured.
 */
export function answerAccepted(res: Response, body: unknown): void {
  res.status(202).setHeader('Preference-Applied', 'respond-async');
  res.json(body);
}
