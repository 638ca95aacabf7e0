#!/usr/bin/env bash
# Makes sure PostgreSQL and Redis answer on 127.0.0.1 and that pgvector is
# installed. Safe to run any number of times: it only starts what is down and
# only installs what is missing.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

apt_install() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "ensure-services: $* missing and installing needs root" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "$@" >/dev/null
}

pg_up() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }
redis_up() { [ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null || true)" = "PONG" ]; }

wait_for() {
  local name="$1" check="$2" i
  for i in $(seq 1 60); do
    if "$check"; then return 0; fi
    sleep 0.5
  done
  echo "ensure-services: $name did not come up" >&2
  exit 1
}

# PostgreSQL
if ! pg_up; then
  if ! ls /etc/postgresql >/dev/null 2>&1 || [ -z "$(ls /etc/postgresql 2>/dev/null)" ]; then
    echo "ensure-services: installing PostgreSQL"
    apt_install postgresql
  fi
  if ! pg_up; then
    echo "ensure-services: starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start || true
  fi
  wait_for PostgreSQL pg_up
fi

# Redis
if ! redis_up; then
  if ! command -v redis-server >/dev/null 2>&1; then
    echo "ensure-services: installing Redis"
    apt_install redis-server
  fi
  if ! redis_up; then
    echo "ensure-services: starting Redis"
    mkdir -p /var/lib/redis /var/log/redis
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log
  fi
  wait_for Redis redis_up
fi

echo "ensure-services: PostgreSQL and Redis are up"
bash "$SCRIPT_DIR/install-pgvector.sh"
