#!/usr/bin/env bash
# Regenerates src/generated/rota-api.ts from the gateway's OpenAPI document
# (needs a built gateway). With --check, fails instead when the committed
# file differs from what the document generates.
set -euo pipefail
SDK="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$SDK/../.." && pwd)"
TARGET="$SDK/src/generated/rota-api.ts"
mkdir -p "$ROOT/.rota"
node "$ROOT/apps/gateway/scripts/openapi-export.cjs" "$ROOT/.rota/sdk-openapi.json"
OUT="$TARGET"
if [ "${1:-}" = "--check" ]; then OUT="$ROOT/.rota/sdk-rota-api.ts"; fi
(cd "$ROOT" && pnpm exec openapi-typescript .rota/sdk-openapi.json -o "$OUT" --silent >/dev/null 2>&1) || (cd "$ROOT" && pnpm exec openapi-typescript .rota/sdk-openapi.json -o "$OUT")
if [ "${1:-}" = "--check" ] && ! diff -q "$OUT" "$TARGET" >/dev/null; then
  echo "sdk: src/generated/rota-api.ts is stale; run 'pnpm --filter @rota/sdk generate'" >&2
  exit 1
fi
