import { randomUUID } from 'node:crypto';
import { testClient, type TestClient, type TestService } from '@trove/testing';

/**
 * A person signed in to the portal, as the gateway forwards a portal JWT: principal `user:<id>`, scope admin, and the
 * tenant's plan when one is given. Signed afresh for every request.
 */
export function portalClient(svc: TestService, tenantId: string, plan?: string): TestClient {
  return testClient(svc, tenantId, ['admin'], { principal: `user:${randomUUID()}`, plan });
}

export type PortalClient = TestClient;
