#!/usr/bin/env bash
# Starts a throwaway PostgreSQL on 127.0.0.1:$PORT (default 55432) in $DIR (default /tmp/paysheet-pg),
# installing Debian's server package when it is missing; prints the database URL. The server speaks
# TLS with a certificate made here by a CA made here: $DIR-tls/ca.pem (for sslmode=verify-full).
# One already running in $DIR is reused.
#   bash .ci/postgres.sh [PORT] [DIR]
set -euo pipefail
PORT="${1:-55432}"
DIR="${2:-/tmp/paysheet-pg}"
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
id postgres >/dev/null 2>&1 || useradd -r postgres
if [ -f "$DIR/postmaster.pid" ] && su postgres -c "$BIN/pg_ctl -D $DIR status" >/dev/null 2>&1; then
  echo "postgres://postgres:paysheet@127.0.0.1:$PORT/paysheet"; exit 0
fi
rm -rf "$DIR" && mkdir -p "$DIR" && chown postgres "$DIR"
su postgres -c "$BIN/initdb -D $DIR -U postgres --auth=trust >/dev/null"
# A CA and a server certificate for 127.0.0.1 and localhost, made fresh.
TLS="$DIR-tls"
rm -rf "$TLS" && mkdir -p "$TLS"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=Paysheet CI PostgreSQL CA" -keyout "$TLS/ca-key.pem" -out "$TLS/ca.pem" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$TLS/server-key.pem" -out "$TLS/server.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > "$TLS/san.ext"
openssl x509 -req -in "$TLS/server.csr" -CA "$TLS/ca.pem" -CAkey "$TLS/ca-key.pem" -CAcreateserial -days 2 -extfile "$TLS/san.ext" \
  -out "$TLS/server.pem" 2>/dev/null
cp "$TLS/server.pem" "$TLS/server-key.pem" "$DIR/"
chown postgres "$DIR/server.pem" "$DIR/server-key.pem" && chmod 600 "$DIR/server-key.pem"
chmod 644 "$TLS/ca.pem"
su postgres -c "$BIN/pg_ctl -D $DIR -o '-p $PORT -k /tmp -c listen_addresses=127.0.0.1 -c ssl=on -c ssl_cert_file=$DIR/server.pem -c ssl_key_file=$DIR/server-key.pem' -l $DIR/log -w start >/dev/null"
su postgres -c "$BIN/psql -h 127.0.0.1 -p $PORT -U postgres -qc \"ALTER USER postgres PASSWORD 'paysheet'\" -c 'CREATE DATABASE paysheet'" >/dev/null
echo "postgres://postgres:paysheet@127.0.0.1:$PORT/paysheet"
