/**
 * The bare chain, the floor for cached search: an express app that reads the JSON request body and answers a fixed
 * JSON body, behind an express app with an http-proxy-middleware proxy (the gateway's libraries and versions), both
 * in this one process as the gateway and the search service share one process under --target=all.
 *
 * Started by search.ts as a child process with IPC: `node bare-chain.js <body bytes>`; it sends `{ port }` of the
 * proxy once both listen and runs until it is killed.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';

async function listen(app: express.Express): Promise<number> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

async function main() {
  const size = Number(process.argv[2] ?? 10_000);
  // A JSON body of exactly `size` bytes, shaped like a search answer.
  const prefix = '{"results":[],"padding":"';
  const suffix = '"}';
  const body = prefix + 'x'.repeat(Math.max(0, size - prefix.length - suffix.length)) + suffix;

  const upstream = express();
  upstream.use(express.json());
  upstream.post('/{*path}', (_req, res) => {
    res.type('application/json').send(body);
  });
  const upstreamPort = await listen(upstream);

  const proxyApp = express();
  proxyApp.use(createProxyMiddleware({ target: `http://127.0.0.1:${upstreamPort}`, changeOrigin: true, xfwd: true }));
  const port = await listen(proxyApp);
  process.send?.({ port });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
