import type { Endpoint, EndpointAnswer, EndpointRequest } from '@trove/contracts';
import type { Express, Request, RequestHandler, Response, Router } from 'express';
import { bodyNotJson } from './body';
import { parseInput } from './validation';

/** Answers 415 for a body the JSON parser left unread for its media type (noteBodyNotJson). */
const refuseBodyNotJson: RequestHandler = (req, _res, next) => next(bodyNotJson(req));

/**
 * Registers express handlers at a declared endpoint's method and path, for a handler that reads its request itself
 * (a streamed upload, a route answering in two vocabularies): the declaration still says what the route is. A route
 * whose declared body is JSON refuses a body sent as anything else (415), after its own middleware (scopes) and before
 * its handler.
 */
export function handle(router: Router | Express, e: Endpoint, ...handlers: RequestHandler[]): void {
  const readsJson = e.body !== undefined && (e.consumes ?? ['application/json']).includes('application/json');
  const chain = readsJson ? [...handlers.slice(0, -1), refuseBodyNotJson, ...handlers.slice(-1)] : handlers;
  (router as Router)[e.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete'](e.path, ...chain);
}

type Handler<E extends Endpoint> = (input: EndpointRequest<E>, req: Request, res: Response) => Promise<EndpointAnswer<E>>;

/**
 * Registers the handler of a declared endpoint (`@trove/contracts` endpoint()), after the given middleware (scopes,
 * a body limit of its own): the request's path parameters, query and body (an absent body read as `{}`) are parsed
 * by the declaration's schemas before the handler runs (a part that fails answers 422 with the issues' locations),
 * and what the handler returns is answered with the declared success status (204 without a body).
 */
export function serve<E extends Endpoint>(router: Router, e: E, handler: Handler<E>): void;
export function serve<E extends Endpoint>(router: Router, e: E, before: RequestHandler[], handler: Handler<E>): void;
export function serve<E extends Endpoint>(router: Router, e: E, ...args: [Handler<E>] | [RequestHandler[], Handler<E>]): void {
  const [before, handler] = args.length === 1 ? [[], args[0]] : args;
  handle(router, e, ...before, async (req: Request, res: Response) => {
    const input = {
      ...(e.params && { params: parseInput(e.params, req.params, 'path') }),
      ...(e.query && { query: parseInput(e.query, req.query, 'query') }),
      ...(e.body && { body: parseInput(e.body, req.body ?? {}, 'body') }),
    } as EndpointRequest<E>;
    const answer = await handler(input, req, res);
    const status = e.status ?? 200;
    if (status === 204) res.status(204).end();
    else res.status(status).json(answer);
  });
}
