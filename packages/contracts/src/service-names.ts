/** The services of the system, each one bounded context. */
export const SERVICE_NAMES = ['gateway', 'auth', 'records', 'ingestion', 'search', 'open', 'billing', 'connector', 'mcp'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** What an API key may be allowed to do; `admin` holds every scope. */
export const SCOPES = ['search', 'upload', 'records', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];
