#!/usr/bin/env bash
# Builds and installs the pgvector extension into the local PostgreSQL.
#
# Debian 12 has no pgvector package, but the next Debian release carries it as
# a source package that builds cleanly against PostgreSQL 15. We fetch that
# source through apt (so no host name lives in this repository), build it
# without CPU-specific flags and install it. Running this again once the
# extension is available does nothing.
set -euo pipefail

PGHOST_ADDR="${PGHOST_ADDR:-127.0.0.1}"
PGUSER_NAME="${PGUSER_NAME:-postgres}"
SOURCES_FILE=/etc/apt/sources.list.d/debian.sources
SRC_LIST=/etc/apt/sources.list.d/rota-pgvector-src.sources

vector_available() {
  [ "$(psql -h "$PGHOST_ADDR" -U "$PGUSER_NAME" -d postgres -tAc "select 1 from pg_available_extensions where name='vector'" 2>/dev/null || true)" = "1" ]
}

if vector_available; then
  echo "pgvector: already available"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "pgvector: not installed, and installing it needs root" >&2
  exit 1
fi

if [ ! -f "$SOURCES_FILE" ]; then
  echo "pgvector: $SOURCES_FILE not found; cannot derive the Debian mirror" >&2
  exit 1
fi

# Take URIs and Signed-By from the first stanza that is not the security archive.
read -r MIRROR_URIS SIGNED_BY < <(awk '
  function flush() {
    if (uris != "" && suites !~ /-security/ && !done) { print uris, (signed == "" ? "-" : signed); done = 1 }
    uris = ""; suites = ""; signed = ""
  }
  /^[[:space:]]*$/ { flush(); next }
  /^URIs:/       { sub(/^URIs:[[:space:]]*/, ""); uris = $0 }
  /^Suites:/     { sub(/^Suites:[[:space:]]*/, ""); suites = $0 }
  /^Signed-By:/  { sub(/^Signed-By:[[:space:]]*/, ""); signed = $0 }
  END { flush() }
' "$SOURCES_FILE")

if [ -z "${MIRROR_URIS:-}" ]; then
  echo "pgvector: no usable URIs in $SOURCES_FILE" >&2
  exit 1
fi

if [ ! -f "$SRC_LIST" ]; then
  {
    echo "Types: deb-src"
    echo "URIs: $MIRROR_URIS"
    echo "Suites: trixie"
    echo "Components: main"
    if [ "$SIGNED_BY" != "-" ]; then echo "Signed-By: $SIGNED_BY"; fi
  } >"$SRC_LIST"
fi

PG_MAJOR="$(ls /etc/postgresql | sort -n | tail -n 1)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "postgresql-server-dev-${PG_MAJOR}" make gcc >/dev/null

WORK_DIR="$(mktemp -d)"
trap 'rm -rf "$WORK_DIR"' EXIT
cd "$WORK_DIR"
# apt drops privileges to _apt for downloads; let it write here.
chmod 777 "$WORK_DIR"
apt-get source --download-only pgvector >/dev/null
ORIG="$(ls pgvector_*.orig.tar.* | head -n 1)"
mkdir src
tar -xf "$ORIG" -C src --strip-components=1
cd src
# OPTFLAGS="" keeps the build portable (no -march=native).
make -s OPTFLAGS="" PG_CONFIG="/usr/lib/postgresql/${PG_MAJOR}/bin/pg_config"
make -s install PG_CONFIG="/usr/lib/postgresql/${PG_MAJOR}/bin/pg_config"

if vector_available; then
  echo "pgvector: installed for PostgreSQL ${PG_MAJOR}"
else
  echo "pgvector: build finished but PostgreSQL does not list the extension" >&2
  exit 1
fi
