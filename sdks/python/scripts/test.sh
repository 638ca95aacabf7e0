#!/usr/bin/env bash
# The Python SDK's checks: pyright (strict) over the package and its tests,
# then pytest against a booted stack (through Jest, which boots it). Installs
# Debian's pytest when it is missing; "no tests collected" fails the run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$ROOT"
if ! python3 -c 'import pytest' 2>/dev/null; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pytest) >/dev/null
  else
    echo "python3-pytest is missing: apt-get install python3-pytest" >&2
    exit 1
  fi
fi
pnpm exec pyright -p sdks/python
pnpm exec jest --ci --maxWorkers=1 -c sdks/python/tests/jest.config.js
