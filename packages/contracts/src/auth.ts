import { z } from 'zod';
import { endpoint } from './endpoint';
import { SCOPES } from './service-names';

/** The principal the gateway signs its own calls with; auth's internal routes answer only this one. */
export const GATEWAY_PRINCIPAL = 'service:gateway';

/** A scope an API key may hold. */
export const apiKeyScope = z.enum(SCOPES);

/** 200 answer of KEY_VERIFY; unknown, revoked or expired keys answer 401 {detail}. */
const keyVerifyResponse = z.object({
  tenant_id: z.string(),
  key_id: z.string(),
  scopes: z.array(apiKeyScope),
  plan: z.string(),
  expires_at: z.string().nullable(),
});
export type KeyVerifyResponse = z.infer<typeof keyVerifyResponse>;

/**
 * The gateway asks auth to turn an API key into an identity here; no other caller may (403). Auth reads the body by
 * hand rather than through serve(), so that a malformed one is never echoed in a 422: any body that is not a key
 * answers 401 like an unknown key.
 */
export const KEY_VERIFY = endpoint({
  service: 'auth',
  method: 'POST',
  path: '/internal/keys/verify',
  summary: 'Turns an API key into the identity it stands for',
  body: z.object({ key: z.string() }),
  answer: keyVerifyResponse,
  refusals: [401],
});
