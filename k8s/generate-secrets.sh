#!/usr/bin/env bash
# Writes the Secret trove-secrets to stdout, each secret a new random value (openssl rand -hex 32), for
# `kubectl apply -f -` or a file you keep out of git (k8s/.gitignore ignores *.secret.yaml). trove-secrets.example
# lists every key it holds. Run it once per installation: a second run makes new keys, which would make every API key
# and every connector's stored credentials unreadable.
#
#   DATABASE_SERVER_URL=postgres://trove:PASSWORD@db.internal:5432 k8s/generate-secrets.sh | kubectl apply -f -
#       production: each service's URL is that server with its own database, trove_<service>
#   k8s/generate-secrets.sh --dev | kubectl apply -f -
#       the dev overlay: also the Secret trove-dev-postgres with a random password for its in-cluster PostgreSQL, and
#       one database (trove) for every service, whose event bus is then that database's own log
#
# Optional, copied in when set: WEBHOOK_SECRET (ingestion then requires signed webhooks), STRIPE_SECRET_KEY and
# STRIPE_WEBHOOK_SECRET (billing, DEPLOYMENT_MODE=cloud). NAMESPACE (default trove) names the namespace.
set -euo pipefail

namespace="${NAMESPACE:-trove}"
services=(gateway auth records ingestion search open billing connector mcp)

dev=false
case "${1:-}" in
  --dev) dev=true ;;
  "") ;;
  *) echo "usage: [DATABASE_SERVER_URL=postgres://user:password@host:5432] $0 [--dev]" >&2; exit 2 ;;
esac

random() { openssl rand -hex 32; }

# A YAML single-quoted scalar: nothing in it is special but the quote itself, doubled.
quoted() { printf "'%s'" "${1//\'/\'\'}"; }

if $dev; then
  postgres_password="$(random)"
  server="postgres://trove:${postgres_password}@postgres:5432"
else
  server="${DATABASE_SERVER_URL:-}"
  if [[ -z "$server" ]]; then
    echo "$0: set DATABASE_SERVER_URL (postgres://user:password@host:5432), or pass --dev for the dev overlay" >&2
    exit 2
  fi
  server="${server%/}"
fi

if $dev; then
  cat <<EOF
apiVersion: v1
kind: Secret
metadata:
  name: trove-dev-postgres
  namespace: ${namespace}
type: Opaque
stringData:
  POSTGRES_PASSWORD: $(quoted "$postgres_password")
---
EOF
fi

cat <<EOF
apiVersion: v1
kind: Secret
metadata:
  name: trove-secrets
  namespace: ${namespace}
type: Opaque
stringData:
  INTERNAL_TOKEN_SECRET: $(quoted "$(random)")
  API_KEY_SALT: $(quoted "$(random)")
  JWT_SECRET: $(quoted "$(random)")
  CONNECTOR_ENCRYPTION_KEY: $(quoted "$(random)")
EOF
for service in "${services[@]}"; do
  if $dev; then database=trove; else database="trove_${service}"; fi
  echo "  ${service^^}_DATABASE_URL: $(quoted "${server}/${database}")"
done
for optional in WEBHOOK_SECRET STRIPE_SECRET_KEY STRIPE_WEBHOOK_SECRET; do
  if [[ -n "${!optional:-}" ]]; then echo "  ${optional}: $(quoted "${!optional}")"; fi
done
