#!/bin/sh
# Runs once, when PostgreSQL starts on an empty data volume (the postgres image runs /docker-entrypoint-initdb.d/*,
# sourcing a script that is not executable, so this one sets no shell options of its own): the role trove, and one
# database per service owned by it (the <NAME>_DATABASE_URL of docker-compose.yml). Owning its database lets a
# service's migrations create what they need, pg_trgm included (a trusted extension), without superuser rights.
# Later changes are made by hand: ALTER ROLE trove PASSWORD '...' after changing TROVE_DATABASE_PASSWORD, or
# CREATE DATABASE for a new service; deploy/check/compose.test.ts checks that every database named is created here.
psql -v ON_ERROR_STOP=1 --username "${POSTGRES_USER:-postgres}" --dbname postgres \
  --set password="${TROVE_DATABASE_PASSWORD:?set TROVE_DATABASE_PASSWORD in .env (see .env.example)}" <<'SQL'
CREATE ROLE trove LOGIN PASSWORD :'password';
CREATE DATABASE trove_auth OWNER trove;
CREATE DATABASE trove_billing OWNER trove;
CREATE DATABASE trove_connector OWNER trove;
CREATE DATABASE trove_gateway OWNER trove;
CREATE DATABASE trove_ingestion OWNER trove;
CREATE DATABASE trove_mcp OWNER trove;
CREATE DATABASE trove_open OWNER trove;
CREATE DATABASE trove_records OWNER trove;
CREATE DATABASE trove_search OWNER trove;
SQL
