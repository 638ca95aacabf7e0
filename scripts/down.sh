#!/usr/bin/env bash
# Stops what scripts/up.sh started, with SIGTERM so in-flight work drains.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
for f in "$ROOT"/.rota/pids/*.pid; do
  [ -e "$f" ] || continue
  pid="$(cat "$f")"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$f"
done
