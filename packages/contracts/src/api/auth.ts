import { z } from 'zod';
import { endpoint, withKey, withoutCredential, withPortalToken, type Endpoint } from '../endpoint';
import { apiKeyScope } from '../auth';

/** An instant as an answer writes it: ISO 8601 in UTC (`2024-05-01T12:00:00.000Z`). */
const instant = z.iso.datetime();

/** A key's scopes: at least one, none twice. */
const keyScopes = z.array(apiKeyScope);

/** The body that creates an API key, with a key (POST /auth/keys) and in the portal (POST /portal/keys) alike. */
export const apiKeyCreateBody = z.object({
  name: z.string().trim().min(1).max(100),
  scopes: keyScopes.min(1).refine((s) => new Set(s).size === s.length, { message: 'Scopes must not repeat' }),
  /** When the key stops working (in the future); a datetime without an offset is read as UTC. None: it never expires. */
  expires_at: z.iso.datetime({ offset: true, local: true }).nullable().optional(),
});

/** A path naming one of the tenant's API keys; the id is lower-cased, so events name a key as the gateway's cache knows it. */
export const apiKeyParams = z.object({ key_id: z.guid().transform((id) => id.toLowerCase()) });

/** One active API key as a listing shows it: never its value. */
export const listedApiKey = z.object({
  id: z.guid(),
  name: z.string(),
  scopes: keyScopes,
  created_at: instant,
  expires_at: instant.nullable(),
  last_used_at: instant.nullable(),
});

/** What POST /auth/keys and its rotate answer: the key's value, shown this once. */
const issuedApiKey = z.object({
  id: z.guid(),
  name: z.string(),
  /** The key's value (`sk_live_` and 64 hex characters): it cannot be read again. */
  key: z.string(),
  scopes: keyScopes,
  expires_at: instant.nullable(),
  /** Tells the reader to store the value now. */
  message: z.string(),
});

/** What the portal's key create and rotate answer: the key's value, shown this once. */
const portalIssuedApiKey = z.object({
  id: z.guid(),
  name: z.string(),
  key: z.string(),
  scopes: keyScopes,
  created_at: instant,
  message: z.string(),
});

export const KEY_CREATE = endpoint({
  service: 'auth',
  method: 'POST',
  path: '/auth/keys',
  summary: "Creates an API key for the caller's tenant, with its scopes and an optional expiry; the key's value is answered once",
  exposed: withKey('admin'),
  body: apiKeyCreateBody,
  example: { name: 'catalogue importer', scopes: ['upload', 'search'], expires_at: '2027-12-31T23:59:59Z' },
  status: 201,
  answer: issuedApiKey,
});

export const KEY_LIST = endpoint({
  service: 'auth',
  method: 'GET',
  path: '/auth/keys',
  summary: "Lists the caller's tenant's active API keys (never their values), oldest first",
  exposed: withKey('admin'),
  answer: z.array(listedApiKey),
});

export const KEY_ROTATE = endpoint({
  service: 'auth',
  method: 'POST',
  path: '/auth/keys/:key_id/rotate',
  summary: 'Gives an API key a new value, answered once; the previous value stops working at once',
  exposed: withKey('admin'),
  params: apiKeyParams,
  answer: issuedApiKey,
  refusals: [404],
});

export const KEY_REVOKE = endpoint({
  service: 'auth',
  method: 'DELETE',
  path: '/auth/keys/:key_id',
  summary: 'Revokes an API key: it stops working at once',
  exposed: withKey('admin'),
  params: apiKeyParams,
  status: 204,
  answer: z.undefined(),
  refusals: [404],
});

export const ADMIN_TENANTS = endpoint({
  service: 'auth',
  method: 'GET',
  path: '/admin/tenants',
  summary: "The caller's tenant: its active record count, its collections holding records, and when it was created",
  exposed: withKey('admin'),
  answer: z.array(
    z.object({
      tenant_id: z.guid(),
      /** Active records of the active generations of its collections: what the plan's record limit counts. */
      record_count: z.number().int().nonnegative(),
      /** Its collections holding such records, by name. */
      collections: z.array(z.string()),
      created_at: instant,
    }),
  ),
});

/** display_name and company: trimmed, empty meaning none (null). */
const accountText = z
  .string()
  .trim()
  .max(200)
  .transform((v) => (v === '' ? null : v))
  .nullable();

/** A portal account: the signed-in user and their tenant (docs/behaviour/portal-sign-in.md). */
export const portalAccount = z.object({
  user_id: z.guid(),
  email: z.string(),
  tenant_id: z.guid(),
  display_name: z.string().nullable(),
  company: z.string().nullable(),
  created_at: instant,
});

/** Long enough for a passphrase, short enough that hashing one costs what hashing any other does. */
const PASSWORD_MAX = 1_000;
const email = z.string().trim().max(254).pipe(z.email());

/** What sign-up and sign-in answer: a portal sign-in token and the account it is for. */
const portalSession = z.object({
  token: z.string(),
  token_type: z.literal('Bearer'),
  /** Seconds until the token expires. */
  expires_in: z.number().int().positive(),
  account: portalAccount,
});

export const PORTAL_SIGNUP = endpoint({
  service: 'auth',
  method: 'POST',
  path: '/portal/auth/signup',
  summary: 'Creates a portal account with a tenant of its own, and answers a sign-in token for it',
  exposed: withoutCredential('/api/v1'),
  body: z.object({
    email,
    password: z.string().min(10).max(PASSWORD_MAX),
    display_name: accountText.optional(),
    company: accountText.optional(),
  }),
  example: { email: 'ada@example.com', password: 'correct horse battery', display_name: 'Ada', company: 'Fasteners Ltd' },
  status: 201,
  answer: portalSession,
  refusals: [409],
});

export const PORTAL_LOGIN = endpoint({
  service: 'auth',
  method: 'POST',
  path: '/portal/auth/login',
  summary: "Signs in to the portal with an account's email and password, and answers a sign-in token",
  exposed: withoutCredential('/api/v1'),
  body: z.object({ email, password: z.string().min(1).max(PASSWORD_MAX) }),
  example: { email: 'ada@example.com', password: 'correct horse battery' },
  answer: portalSession,
  // A wrong email or password, said the same way for both.
  refusals: [401],
});

export const PORTAL_KEY_CREATE = endpoint({
  ...KEY_CREATE,
  path: '/portal/keys',
  summary: "Creates an API key for the signed-in tenant, as POST /auth/keys does; the key's value is answered once",
  exposed: withPortalToken,
  answer: portalIssuedApiKey,
});

export const PORTAL_KEY_LIST = endpoint({
  service: 'auth',
  method: 'GET',
  path: '/portal/keys',
  summary: "Lists the signed-in tenant's active API keys (never their values), oldest first",
  exposed: withPortalToken,
  answer: z.object({ keys: z.array(listedApiKey) }),
});

export const PORTAL_KEY_ROTATE = endpoint({
  ...KEY_ROTATE,
  path: '/portal/keys/:key_id/rotate',
  summary: "Gives one of the signed-in tenant's API keys a new value, answered once; the previous value stops working at once",
  exposed: withPortalToken,
  answer: portalIssuedApiKey,
});

export const PORTAL_KEY_REVOKE = endpoint({
  ...KEY_REVOKE,
  path: '/portal/keys/:key_id',
  summary: "Revokes one of the signed-in tenant's API keys: it stops working at once",
  exposed: withPortalToken,
});

export const PORTAL_ACCOUNT = endpoint({
  service: 'auth',
  method: 'GET',
  path: '/portal/account',
  summary: "The signed-in person's account",
  exposed: withPortalToken,
  answer: portalAccount,
  refusals: [404],
});

export const PORTAL_ACCOUNT_UPDATE = endpoint({
  service: 'auth',
  method: 'PATCH',
  path: '/portal/account',
  summary: "Changes the signed-in person's display name or company (empty or null clears it); fields left out stay",
  exposed: withPortalToken,
  // Strict: a misspelt field is a 422, not a silent no-op.
  body: z.strictObject({ display_name: accountText.optional(), company: accountText.optional() }),
  example: { display_name: 'Ada Lovelace', company: 'Fasteners Ltd' },
  answer: portalAccount,
  refusals: [404],
});

/** The portal's quickstart steps, in the order a new account goes through them. */
export const QUICKSTART_STEP_IDS = ['create_api_key', 'define_schema', 'upload_data', 'first_search'] as const;

export const PORTAL_QUICKSTART = endpoint({
  service: 'auth',
  method: 'GET',
  path: '/portal/quickstart',
  summary: "The signed-in tenant's first steps (create a key, define a record type, upload, search), each with when it was done",
  exposed: withPortalToken,
  answer: z.object({
    steps: z.array(
      z.object({
        id: z.enum(QUICKSTART_STEP_IDS),
        title: z.string(),
        completed: z.boolean(),
        completed_at: instant.nullable(),
      }),
    ),
    all_completed: z.boolean(),
  }),
});

/** Every public endpoint the auth service answers. */
export const AUTH_API: readonly Endpoint[] = [
  KEY_CREATE,
  KEY_LIST,
  KEY_ROTATE,
  KEY_REVOKE,
  ADMIN_TENANTS,
  PORTAL_SIGNUP,
  PORTAL_LOGIN,
  PORTAL_KEY_CREATE,
  PORTAL_KEY_LIST,
  PORTAL_KEY_ROTATE,
  PORTAL_KEY_REVOKE,
  PORTAL_ACCOUNT,
  PORTAL_ACCOUNT_UPDATE,
  PORTAL_QUICKSTART,
];
