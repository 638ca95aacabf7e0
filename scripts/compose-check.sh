#!/usr/bin/env bash
# Validates docker-compose.yml without a Docker engine.
#
#   bash scripts/compose-check.sh [path/to/compose.yml]
#
# `docker-compose config -q` parses the file, resolves anchors, merge keys and
# ${VAR} interpolation, and checks the result against the Compose schema; it
# never talks to an engine. Tried in order:
#   1. a `docker-compose` already on PATH;
#   2. the `docker compose` plugin, when the Docker CLI has it;
#   3. Debian's `docker-compose` package, installed with apt-get (only when
#      neither exists, so later runs skip this step);
#   4. without apt, the dclint linter from npm (COMPOSE_CHECK_TOOL=dclint
#      forces this path).
# Safe to run any number of times. Prints one OK line on success; exits
# non-zero with the validator's message otherwise.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FILE="${1:-$ROOT/docker-compose.yml}"

if [ ! -f "$FILE" ]; then
  echo "compose-check: $FILE not found" >&2
  exit 1
fi
cd "$(dirname "$FILE")"
FILE="$(basename "$FILE")"

# Interpolation of unset variables only produces warnings, but keep the
# output quiet and deterministic: the optional keys are empty here anyway.
export ANTHROPIC_API_KEY="${ANTHROPIC_API_KEY:-}"
export OPENAI_API_KEY="${OPENAI_API_KEY:-}"
# The file refuses to interpolate without a credentials key; a placeholder is
# enough to check its shape (nothing is started).
export ROTA_CREDENTIALS_KEY="${ROTA_CREDENTIALS_KEY:-compose-check-placeholder}"
export ROTA_WEBHOOK_KEY="${ROTA_WEBHOOK_KEY:-compose-check-placeholder}"
# docker-compose 1.x does not expand the nested default of ROTA_PUBLIC_URL
# (Compose v2 does); a value keeps its output exact.
export ROTA_PUBLIC_URL="${ROTA_PUBLIC_URL:-http://127.0.0.1:3000}"

ok() { echo "compose-check: OK ($FILE is valid; checked with $1)"; }

have_compose_v1() { command -v docker-compose >/dev/null 2>&1; }
have_compose_v2() { command -v docker >/dev/null 2>&1 && docker compose version >/dev/null 2>&1; }

install_compose_with_apt() {
  command -v apt-get >/dev/null 2>&1 || return 1
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      echo "compose-check: docker-compose is missing and installing it needs root" >&2
      return 1
    fi
  fi
  echo "compose-check: installing docker-compose with apt-get" >&2
  # No recommends: that would pull in the Docker engine, which is not needed
  # to validate a file.
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends docker-compose >/dev/null
  have_compose_v1
}

run_dclint() {
  # Errors only (its style warnings do not fail the check). The gateway's host
  # interface is a ${VAR:-default}, which dclint cannot read as an address, so
  # its unbound-interface rule would misfire there.
  npx --yes dclint@3 "$FILE" --quiet --disable-rule no-unbound-port-interfaces
  ok "dclint@3"
}

if [ "${COMPOSE_CHECK_TOOL:-}" = "dclint" ]; then
  run_dclint
elif have_compose_v1; then
  docker-compose -f "$FILE" config -q
  ok "$(docker-compose version --short 2>/dev/null || echo docker-compose)"
elif have_compose_v2; then
  docker compose -f "$FILE" config -q
  ok "docker compose $(docker compose version --short 2>/dev/null || true)"
elif install_compose_with_apt; then
  docker-compose -f "$FILE" config -q
  ok "$(docker-compose version --short 2>/dev/null || echo docker-compose)"
else
  echo "compose-check: no docker-compose and no apt; linting with dclint" >&2
  run_dclint
fi
