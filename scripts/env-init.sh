#!/usr/bin/env bash
# Sourced by scripts/up.sh (and run by its test): the settings this install
# keeps in .env, and the public address every service is given.
#
# Two keys are written to .env (readable by its owner only) on the first run
# and reused by every later one:
#   ROTA_CREDENTIALS_KEY  seals provider credentials; losing it makes every
#                         stored credential unreadable.
#   ROTA_WEBHOOK_KEY      seals webhook signing secrets (the worker's own key);
#                         losing it means recreating every subscription.
# A key already in the environment wins and nothing is written for it.
#
# ROTA_PUBLIC_URL, unless already set, is computed once here from the
# gateway's HOST and PORT (a wildcard host becomes loopback) and exported, so
# the gateway and every service build the same URLs: session MCP URLs, the
# OpenAPI `servers` entry, OAuth redirect URIs.
#
#   ROTA_ENV_FILE  the file to keep the keys in (default .env in the current
#                  directory)

rota_new_key() {
  node -e "process.stdout.write(require('node:crypto').randomBytes(32).toString('base64'))"
}

# rota_keep_key NAME DESCRIPTION: NAME from the environment, else from the
# env file, else a new key appended to it.
rota_keep_key() {
  local name="$1" what="$2" file="${ROTA_ENV_FILE:-.env}"
  if [ -n "${!name:-}" ]; then
    export "${name?}"
    return 0
  fi
  touch "$file"
  chmod 600 "$file"
  if ! grep -q "^${name}=." "$file"; then
    echo "${name}=$(rota_new_key)" >>"$file"
    echo "Wrote a new ${what} key to ${file} (keep it: ${name})."
  fi
  local value
  value="$(grep "^${name}=" "$file" | tail -n 1 | cut -d= -f2-)"
  export "${name}=${value}"
}

# A rotation list (ROTA_CREDENTIALS_KEYS) stands in for the single key.
if [ -z "${ROTA_CREDENTIALS_KEYS:-}" ]; then
  rota_keep_key ROTA_CREDENTIALS_KEY credentials
fi
rota_keep_key ROTA_WEBHOOK_KEY "webhook sealing"

if [ -z "${ROTA_PUBLIC_URL:-}" ]; then
  rota_public_host="${HOST:-0.0.0.0}"
  case "$rota_public_host" in
    "" | 0.0.0.0) rota_public_host=127.0.0.1 ;;
    :: | "[::]") rota_public_host="[::1]" ;;
    \[*) ;;
    *:*) rota_public_host="[${rota_public_host}]" ;;
  esac
  export ROTA_PUBLIC_URL="http://${rota_public_host}:${PORT:-3000}"
  unset rota_public_host
fi
