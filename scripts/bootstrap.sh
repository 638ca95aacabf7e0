#!/usr/bin/env bash
# Shared first half of the quick start and the test command: tools, services,
# dependencies and a build. Idempotent; a second run only checks.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version)" != "10.34.9" ]; then
  npm install -g pnpm@10.34.9 >/dev/null
fi

bash scripts/ensure-services.sh
# The dashboard tests drive Debian's chromium headless.
bash scripts/ensure-chromium.sh

pnpm install --frozen-lockfile --reporter=silent
bash scripts/prisma-generate.sh --if-stale
pnpm exec turbo run build --output-logs=errors-only
