import { readFileSync } from 'node:fs';
import { GATEWAY_DOCS, GATEWAY_DOCS_SCRIPT, GATEWAY_OPENAPI, openApiAnswer, referenceDocument } from '@trove/contracts';
import { handle, type Router } from '@trove/platform';
import { asset, send, type Asset } from './assets';

/**
 * The API's reference, answered by the gateway itself, without a key: the OpenAPI document of every public endpoint,
 * and the page at /docs that renders it for people (docs/behaviour/gateway.md).
 */
export function referenceRoutes(router: Router): void {
  handle(router, GATEWAY_OPENAPI, (_req, res) => {
    res.json(referenceDocument('all'));
  });

  const script = rendererScript();
  // The page's URLs are relative to it; the router takes /docs/ as /docs too, and from there they start one level up.
  const pages = { atDocs: page(script, ''), underDocs: page(script, '../') };
  handle(router, GATEWAY_DOCS, (req, res) => {
    res.setHeader('Content-Security-Policy', PAGE_POLICY);
    res.setHeader('Referrer-Policy', 'no-referrer');
    send(req, res, req.path.endsWith('/') ? pages.underDocs : pages.atDocs, 'text/html; charset=utf-8', 'no-cache');
  });
  handle(router, GATEWAY_DOCS_SCRIPT, (req, res) => {
    // The page asks for it with its content's hash in the query, so a cached copy never outlives its page.
    send(req, res, script, 'application/javascript; charset=utf-8', 'public, max-age=31536000, immutable');
  });
}

/**
 * What the page may load: only files of this origin. Redoc writes its styles into <style> elements (and rendered
 * markdown may carry style attributes), so inline styles are allowed; no inline script is. Redoc runs its search
 * index in a worker it starts from a blob: URL.
 */
const PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The one address on another host that Redoc's bundle loads: Redocly's logo from its CDN, in the menu's footer. It is
 * blanked (an image without a source hides itself). A Redoc whose bundle no longer holds it exactly once refuses to
 * start here, so that its bundle is checked again (test-e2e/docs-page.e2e.test.ts records every request the page makes).
 */
const FOREIGN_LOGO = '"https://cdn.redoc.ly/redoc/logo-mini.svg"';

/** Redoc's standalone bundle as served: read once, without its logo's address or the source map it does not ship with. */
function rendererScript(): Asset {
  const file = require.resolve('redoc/bundles/redoc.standalone.js');
  const bundle = readFileSync(file, 'utf8');
  if (bundle.split(FOREIGN_LOGO).length !== 2) {
    throw new Error(`${file} does not hold ${FOREIGN_LOGO} exactly once: check what the reference page loads from other hosts`);
  }
  return asset(bundle.replace(FOREIGN_LOGO, '""').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'));
}

/**
 * The page: Redoc's element, which its bundle renders the OpenAPI document into when it loads. Its URLs are relative,
 * `up` leading from the page's folder to the gateway's root, so the page works behind a path prefix too.
 */
function page(script: Asset, up: '' | '../'): Asset {
  const fromPage = (path: string) => up + path.replace(/^\//, '');
  const title = `${openApiAnswer.parse(referenceDocument('all')).info.title} reference`;
  const documentUrl = fromPage(GATEWAY_OPENAPI.path);
  return asset(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="data:,">
<style>body { margin: 0; }</style>
</head>
<body>
<noscript>This page renders the OpenAPI document at <a href="${documentUrl}">${documentUrl}</a> with JavaScript.</noscript>
<redoc spec-url="${documentUrl}" expand-responses="200,201" path-in-middle-panel="true"></redoc>
<script src="${fromPage(GATEWAY_DOCS_SCRIPT.path)}?v=${script.hash}"></script>
</body>
</html>
`);
}
