import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { GATEWAY_WEB, GATEWAY_WEB_ASSET, GATEWAY_WEB_ITEM, GATEWAY_WEB_SCREEN } from '@trove/contracts';
import { ERRORS, handle, type Router } from '@trove/platform';
import { asset, send, type Asset } from './assets';

/**
 * The portal's web UI (apps/web, docs/web-ui.md), as `pnpm run build` leaves it in apps/web/dist: its page at / and at
 * every screen's address under /app, and its files under /assets. The folder is read once, when the gateway starts;
 * without it every page answers 503 saying how to build it, and the rest of the gateway works as ever.
 */
export function webRoutes(router: Router, folder: string | undefined = webFolder()): void {
  const files = folder === undefined ? undefined : readBuild(folder);
  const pages = [GATEWAY_WEB, GATEWAY_WEB_SCREEN, GATEWAY_WEB_ITEM];
  for (const e of pages) {
    handle(router, e, (req, res) => {
      res.setHeader('Content-Security-Policy', PAGE_POLICY);
      res.setHeader('Referrer-Policy', 'no-referrer');
      if (!files) {
        res.status(503);
        send(req, res, NOT_BUILT, 'text/html; charset=utf-8', 'no-store');
        return;
      }
      send(req, res, files.page, 'text/html; charset=utf-8', 'no-cache');
    });
  }
  handle(router, GATEWAY_WEB_ASSET, (req, res) => {
    const file = files?.assets.get(req.params.file as string);
    if (!file) throw ERRORS.notFound('No such file of the web UI');
    // Vite names each file by its content's hash, so a cached copy is never stale.
    send(req, res, file.content, file.type, 'public, max-age=31536000, immutable');
  });
}

/**
 * What the UI's page may load and do: only scripts and styles of this origin, no inline script or style, requests to
 * this origin only (the API it is served with), and no framing.
 */
const PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The media types of the files the build writes under assets/; another file there is not served. */
const TYPES: Readonly<Record<string, string>> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

interface Build {
  page: Asset;
  assets: Map<string, { content: Asset; type: string }>;
}

/** apps/web/dist, where @trove/web builds to; undefined when the package is not installed beside the gateway. */
function webFolder(): string | undefined {
  try {
    return join(dirname(require.resolve('@trove/web/package.json')), 'dist');
  } catch {
    return undefined;
  }
}

function readBuild(folder: string): Build | undefined {
  const index = join(folder, 'index.html');
  if (!existsSync(index)) return undefined;
  const assets = new Map<string, { content: Asset; type: string }>();
  const assetFolder = join(folder, 'assets');
  for (const name of existsSync(assetFolder) ? readdirSync(assetFolder) : []) {
    const type = TYPES[extname(name)];
    if (type) assets.set(name, { content: asset(readFileSync(join(assetFolder, name))), type });
  }
  return { page: asset(readFileSync(index)), assets };
}

const NOT_BUILT = asset(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Trove: the web UI was not built</title></head>
<body>
<h1>The web UI was not built</h1>
<p>This gateway serves the portal's web UI from <code>apps/web/dist</code>, which <code>pnpm run build</code> writes. The API answers as ever under <a href="/api/v1/openapi.json">/api/v1</a>; its reference is at <a href="/docs">/docs</a>.</p>
</body>
</html>
`);
