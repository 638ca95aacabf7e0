#!/usr/bin/env bash
# Makes sure Debian's chromium is installed: the dashboard tests drive it
# headless through playwright-core (which downloads no browser of its own).
# Safe to run any number of times; it only installs what is missing.
set -euo pipefail

if command -v chromium >/dev/null 2>&1 || [ -x "${ROTA_CHROMIUM:-/usr/bin/chromium}" ]; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1 || [ "$(id -u)" -ne 0 ]; then
  echo "ensure-chromium: chromium is missing; install it (apt-get install chromium) or set ROTA_CHROMIUM to a Chromium binary" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
