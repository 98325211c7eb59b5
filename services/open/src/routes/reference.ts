import { OPEN_OPENAPI, referenceDocument } from '@trove/contracts';
import { handle, type Router } from '@trove/platform';

/** The Open API's reference: the OpenAPI document of its endpoints alone. */
export function referenceRoutes(router: Router): void {
  handle(router, OPEN_OPENAPI, (_req, res) => {
    res.json(referenceDocument('open'));
  });
}
