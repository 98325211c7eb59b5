import type { Endpoint, EndpointAnswer, EndpointRequest } from '@trove/contracts';
import type { Request, Response, Router } from 'express';
import { parseInput } from './validation';

/**
 * Registers the handler of a declared endpoint (`@trove/contracts` endpoint()): the request's path parameters, query
 * and body are parsed by the declaration's schemas before the handler runs (a part that fails answers 422 with the
 * issues' locations), and what the handler returns is answered with the declared success status.
 */
export function serve<E extends Endpoint>(
  router: Router,
  e: E,
  handler: (input: EndpointRequest<E>, req: Request, res: Response) => Promise<EndpointAnswer<E>>,
): void {
  const method = e.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
  router[method](e.path, async (req, res) => {
    const input = {
      ...(e.params && { params: parseInput(e.params, req.params, 'path') }),
      ...(e.query && { query: parseInput(e.query, req.query, 'query') }),
      ...(e.body && { body: parseInput(e.body, req.body, 'body') }),
    } as EndpointRequest<E>;
    const answer = await handler(input, req, res);
    res.status(e.status ?? 200).json(answer);
  });
}
