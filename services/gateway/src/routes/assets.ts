import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Request, Response } from 'express';

/** A file the gateway serves itself (the reference page, the web UI), held in memory as it is and compressed. */
export interface Asset {
  body: Buffer;
  gzipped: Buffer;
  /** The content's hash: its ETag, and what a page names it by. */
  hash: string;
}

export function asset(content: string | Buffer): Asset {
  const body = Buffer.from(content);
  return { body, gzipped: gzipSync(body), hash: createHash('sha256').update(body).digest('base64url').slice(0, 22) };
}

/**
 * Answers the asset, gzipped to a client that takes it, or 304 to a request whose If-None-Match names the ETag of
 * what it would get (express's send compares them).
 */
export function send(req: Request, res: Response, asset: Asset, type: string, cacheControl: string): void {
  const gzip = req.acceptsEncodings('gzip', 'identity') === 'gzip';
  res.setHeader('Content-Type', type);
  res.setHeader('Cache-Control', cacheControl);
  res.setHeader('Vary', 'Accept-Encoding');
  res.setHeader('ETag', gzip ? `"${asset.hash}-gzip"` : `"${asset.hash}"`);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (gzip) res.setHeader('Content-Encoding', 'gzip');
  res.send(gzip ? asset.gzipped : asset.body);
}
