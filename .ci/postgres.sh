#!/usr/bin/env bash
# Starts a throwaway PostgreSQL on 127.0.0.1:$PORT (default 55432) in /tmp/paysheet-pg, installing
# Debian's server package when it is missing; prints the database URL.
set -euo pipefail
PORT="${1:-55432}"
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
id postgres >/dev/null 2>&1 || useradd -r postgres
DIR=/tmp/paysheet-pg
if [ -f "$DIR/postmaster.pid" ] && su postgres -c "$BIN/pg_ctl -D $DIR status" >/dev/null 2>&1; then
  echo "postgres://postgres:paysheet@127.0.0.1:$PORT/paysheet"; exit 0
fi
rm -rf "$DIR" && mkdir -p "$DIR" && chown postgres "$DIR"
su postgres -c "$BIN/initdb -D $DIR -U postgres --auth=trust >/dev/null"
su postgres -c "$BIN/pg_ctl -D $DIR -o '-p $PORT -k /tmp -c listen_addresses=127.0.0.1' -l $DIR/log -w start >/dev/null"
su postgres -c "$BIN/psql -h 127.0.0.1 -p $PORT -U postgres -qc \"ALTER USER postgres PASSWORD 'paysheet'\" -c 'CREATE DATABASE paysheet'" >/dev/null
echo "postgres://postgres:paysheet@127.0.0.1:$PORT/paysheet"
