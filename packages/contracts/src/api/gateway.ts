import { z } from 'zod';
import { endpoint, withoutCredential, type Endpoint } from '../endpoint';
import { serviceAppEndpoints } from './service-app';

/** The gateway's own endpoints answer at its root and under /api/v1, without a key. */
const gatewayOwn = withoutCredential('', '/api/v1');

const gateway = serviceAppEndpoints('gateway', 'the gateway', gatewayOwn);

export const GATEWAY_HEALTH = gateway.health;

export const GATEWAY_HEALTH_READY = endpoint({
  ...gateway.ready,
  summary: 'Readiness of the system as a client sees it: storage, event bus, counter store, auth and the search engine (503 when one is down)',
});

export const GATEWAY_METRICS = endpoint({ ...gateway.metrics, summary: "The Prometheus metrics of the gateway's process: the gateway's own (requests, durations, fair-share schedulers) and those of every service running in it" });

/** An OpenAPI 3.1 document (openApiDocument). */
export const openApiAnswer = z.looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string(), version: z.string() }) });

export const GATEWAY_OPENAPI = endpoint({
  service: 'gateway',
  method: 'GET',
  path: '/api/v1/openapi.json',
  summary: 'This API described in OpenAPI 3.1: every endpoint the gateway serves, its requests, answers, refusals and security',
  exposed: withoutCredential(''),
  answer: openApiAnswer,
});

/** The reference as a page for people: GATEWAY_OPENAPI rendered in the browser by a script the gateway serves too. */
export const GATEWAY_DOCS = endpoint({
  service: 'gateway',
  method: 'GET',
  path: '/docs',
  summary: "This API's reference as a page to read in a browser, rendered from /api/v1/openapi.json with nothing loaded from another host",
  exposed: withoutCredential(''),
  produces: ['text/html'],
  answer: z.string(),
});

export const GATEWAY_DOCS_SCRIPT = endpoint({
  service: 'gateway',
  method: 'GET',
  path: '/docs/redoc.standalone.js',
  summary: 'The script that renders the reference page (Redoc, bundled with everything it needs)',
  exposed: withoutCredential(''),
  produces: ['application/javascript'],
  answer: z.string(),
});

/** Why a page of the web UI answers 503: the gateway serves apps/web/dist, and the build did not make it. */
const UI_NOT_BUILT = { 503: { description: 'The web UI was not built (`pnpm run build` builds it into apps/web/dist): a page saying so' } };

/**
 * The portal's web UI (apps/web, docs/web-ui.md): one HTML page at / and at each of its own addresses under /app, so
 * that a reload or a shared link opens the same screen; the page talks to the API only as any client of it would.
 */
export const GATEWAY_WEB = endpoint({
  service: 'gateway',
  method: 'GET',
  path: '/',
  summary: "The portal's web UI: sign up, keys, uploads, collections, records and a search playground, in a browser",
  exposed: withoutCredential(''),
  produces: ['text/html'],
  answer: z.string(),
  otherAnswers: UI_NOT_BUILT,
});

export const GATEWAY_WEB_SCREEN = endpoint({
  service: 'gateway',
  method: 'GET',
  path: '/app/:screen',
  summary: "A screen of the web UI by its address (/app/keys, /app/search, …): the same page as /, which opens that screen",
  exposed: withoutCredential(''),
  params: z.object({ screen: z.string() }),
  produces: ['text/html'],
  answer: z.string(),
  otherAnswers: UI_NOT_BUILT,
});

export const GATEWAY_WEB_ITEM = endpoint({
  service: 'gateway',
  method: 'GET',
  path: '/app/:screen/:item',
  summary: 'A screen of the web UI about one thing (/app/collections/{name}): the same page as /, which opens that screen',
  exposed: withoutCredential(''),
  params: z.object({ screen: z.string(), item: z.string() }),
  produces: ['text/html'],
  answer: z.string(),
  otherAnswers: UI_NOT_BUILT,
});

export const GATEWAY_WEB_ASSET = endpoint({
  service: 'gateway',
  method: 'GET',
  path: '/assets/:file',
  summary: "A file of the web UI (its scripts and styles), named by its content's hash and cached for good",
  exposed: withoutCredential(''),
  params: z.object({ file: z.string() }),
  produces: ['application/javascript', 'text/css'],
  answer: z.string(),
});

/** Every public endpoint the gateway service answers. */
export const GATEWAY_API: readonly Endpoint[] = [
  GATEWAY_HEALTH,
  GATEWAY_HEALTH_READY,
  GATEWAY_METRICS,
  GATEWAY_OPENAPI,
  GATEWAY_DOCS,
  GATEWAY_DOCS_SCRIPT,
  GATEWAY_WEB,
  GATEWAY_WEB_SCREEN,
  GATEWAY_WEB_ITEM,
  GATEWAY_WEB_ASSET,
];
