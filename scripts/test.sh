#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs and builds what is
# missing, then runs unit, integration and end-to-end tests. Every test file
# makes its own database and Redis prefix, so this can run twice in a row.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/bootstrap.sh
# The Kubernetes manifests render and validate against the API schemas.
node deploy/kubernetes/check.mjs
pnpm exec turbo run typecheck --output-logs=errors-only
pnpm typecheck:test
pnpm lint
pnpm format:check
pnpm openapi:lint
pnpm exec jest --ci --maxWorkers=2 "$@"
# The Python SDK: pyright (strict), then pytest against a booted stack.
if [ "$#" -eq 0 ]; then
  bash sdks/python/scripts/test.sh
fi
# The CI-sized reliability run (a few minutes): fuzz, attacks, soak, faults and money
# against a private Postgres, Redis and the built apps; exits 1 when a figure
# misses its target. Skipped when arguments narrow the run to some tests.
if [ "$#" -eq 0 ]; then
  pnpm exec turbo run build --output-logs=errors-only
  pnpm reliability:ci
  # Every benchmark suite at a tiny size: a suite that no longer runs fails CI.
  pnpm bench --smoke
fi
