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
  {
    version: 2,
    name: 'portal users',
    // One account per email whatever its case: the unique index is on lower(email), and sign-in looks it up so.
    up: `
      create table auth.users (
        id uuid primary key,
        tenant_id uuid not null references auth.tenants (id),
        email text not null,
        password_hash text not null,
        display_name text,
        company text,
        created_at timestamptz not null default now()
      );
      create unique index users_email_lower_idx on auth.users (lower(email));
      create index users_tenant_idx on auth.users (tenant_id);
    `,
  },
];
