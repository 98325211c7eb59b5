import { z } from 'zod';

/** The gateway asks auth to turn an API key into an identity here; no other caller may. */
export const KEY_VERIFY_PATH = '/internal/keys/verify';
/** The principal the gateway signs its own calls with; auth's internal routes answer only this one. */
export const GATEWAY_PRINCIPAL = 'service:gateway';

export const keyVerifyRequest = z.object({ key: z.string() });
export type KeyVerifyRequest = z.infer<typeof keyVerifyRequest>;

/** 200 answer of KEY_VERIFY_PATH; unknown, revoked or expired keys answer 401 {detail}. */
export const keyVerifyResponse = z.object({
  tenant_id: z.string(),
  key_id: z.string(),
  scopes: z.array(z.enum(['search', 'upload', 'records', 'admin'])),
  plan: z.string(),
  expires_at: z.string().nullable(),
});
export type KeyVerifyResponse = z.infer<typeof keyVerifyResponse>;
