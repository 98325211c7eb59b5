import type { Migration } from '@trove/db';

/** The auth schema: tenants and their API keys. Key values are never stored, only their HMAC. */
export const authMigrations: Migration[] = [
  {
    version: 1,
    name: 'tenants and api keys',
    up: `
      create table auth.tenants (
        id uuid primary key,
        name text,
        plan text not null check (plan in ('free', 'pro', 'scale', 'enterprise')),
        created_at timestamptz not null default now()
      );
      create table auth.api_keys (
        id uuid primary key,
        tenant_id uuid not null references auth.tenants (id),
        name text not null,
        key_hash text not null unique,
        scopes text[] not null,
        expires_at timestamptz,
        created_at timestamptz not null default now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      );
      create index api_keys_tenant_created_idx on auth.api_keys (tenant_id, created_at);
    `,
  },
];
