#!/usr/bin/env bash
# Lints the generated OpenAPI document with Redocly and Spectral; fails on
# any error (warnings are printed). Needs a built gateway.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
mkdir -p .rota
node apps/gateway/scripts/openapi-export.cjs .rota/openapi.json
pnpm exec redocly lint .rota/openapi.json --config redocly.yaml --format=summary 2>&1 | grep -v '[║╔╚]'
pnpm exec spectral lint .rota/openapi.json --ruleset .spectral.yaml --fail-severity=error
# The typed client types (the SDK's, which the tests use too) must match the document.
bash packages/sdk/scripts/generate.sh --check
echo "openapi-lint: 0 errors; generated client types up to date"
