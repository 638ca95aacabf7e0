#!/usr/bin/env bash
# Quick start: installs what is missing, makes sure Postgres (with pgvector)
# and Redis run, migrates, seeds, starts the five services in the background
# and prints the gateway URL and a fresh dev API key.
# Logs: .rota/logs/<app>.log   Stop: bash scripts/down.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bash scripts/bootstrap.sh

export DATABASE_URL="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/rota}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
export PORT="${PORT:-3000}"

# The credentials and webhook keys of this install (kept in .env) and the
# public address every service is given (ROTA_PUBLIC_URL): scripts/env-init.sh.
# shellcheck source=scripts/env-init.sh
source scripts/env-init.sh

node packages/db/dist/migrate-cli.js
node packages/db/dist/seed-cli.js
# The demo provider catalog; the worker embeds it as soon as it starts.
node packages/cli/dist/main.js catalog seed

bash scripts/down.sh >/dev/null 2>&1 || true
mkdir -p .rota/logs .rota/pids
for app in search session router worker gateway; do
  nohup node "apps/$app/dist/main.js" >".rota/logs/$app.log" 2>&1 &
  echo $! >".rota/pids/$app.pid"
done
# The sandbox provider server: the demo providers' test environment, on this
# machine, so raw tools work with no outside network (docs/sandbox.md).
export SANDBOX_PORT="${SANDBOX_PORT:-4010}"
nohup node apps/sandbox/dist/main.js >.rota/logs/sandbox.log 2>&1 &
echo $! >.rota/pids/sandbox.pid

url="http://127.0.0.1:${PORT}"
for _ in $(seq 1 120); do
  if curl -fsS "$url/health/ready" >/dev/null 2>&1; then break; fi
  sleep 0.5
done
if ! curl -fsS "$url/health/ready" >/dev/null 2>&1; then
  echo "The stack did not become ready; see .rota/logs/." >&2
  curl -sS "$url/health/ready" >&2 || true
  exit 1
fi

key="$(node packages/cli/dist/main.js keys create --scopes servers:read,sessions:create,tools:execute,connections:write,catalog:write --name quickstart)"
echo
echo "Rota is up."
echo "  gateway:     $url"
if [ "$ROTA_PUBLIC_URL" != "$url" ]; then echo "  public URL:  $ROTA_PUBLIC_URL"; fi
if curl -fsS "http://127.0.0.1:${SANDBOX_PORT}/health" >/dev/null 2>&1; then
  echo "  sandbox:     http://127.0.0.1:${SANDBOX_PORT}  (fake providers, docs/sandbox.md)"
else
  echo "  sandbox:     not answering; see .rota/logs/sandbox.log" >&2
fi
echo "  dev API key: $key"
echo "  try:         curl -s $url/health/ready"
