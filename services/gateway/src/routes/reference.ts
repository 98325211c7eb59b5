import { GATEWAY_OPENAPI, referenceDocument } from '@trove/contracts';
import { handle, type Router } from '@trove/platform';

/** The API's reference, answered by the gateway itself, without a key: the OpenAPI document of every public endpoint. */
export function referenceRoutes(router: Router): void {
  handle(router, GATEWAY_OPENAPI, (_req, res) => {
    res.json(referenceDocument('all'));
  });
}
