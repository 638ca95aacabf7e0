#!/usr/bin/env bash
# Generates the Prisma client into packages/db/src/generated/prisma.
#
#   scripts/prisma-generate.sh             always regenerate
#   scripts/prisma-generate.sh --if-stale  only when the client is missing or
#                                          older than prisma/schema.prisma
#
# `prisma generate` insists on locating a schema engine even though generating
# does not use it; pointing PRISMA_SCHEMA_ENGINE_BINARY at any executable stops
# it from trying to download one, so this works offline. The prisma CLI is a
# dependency of @rota/db, so it runs inside that package (the paths passed to
# it are relative to packages/db). A lock keeps parallel builds from writing
# the same files at once.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCHEMA="$ROOT/prisma/schema.prisma"
CLIENT="$ROOT/packages/db/src/generated/prisma/client.ts"

export PRISMA_SCHEMA_ENGINE_BINARY="${PRISMA_SCHEMA_ENGINE_BINARY:-/bin/false}"
export PRISMA_HIDE_UPDATE_MESSAGE=1
export CHECKPOINT_DISABLE=1

is_fresh() { [ -f "$CLIENT" ] && [ "$CLIENT" -nt "$SCHEMA" ]; }

generate() {
  if [ "${1:-}" = "--if-stale" ] && is_fresh; then return 0; fi
  cd "$ROOT"
  pnpm --filter @rota/db exec prisma generate --schema ../../prisma/schema.prisma --config ../../prisma.config.ts
}

if command -v flock >/dev/null 2>&1; then
  mkdir -p "$ROOT/packages/db/src/generated"
  exec 9>"$ROOT/packages/db/src/generated/.lock"
  flock 9
fi
generate "${1:-}"
