#!/usr/bin/env bash
# Starts HAProxy (Debian's package, installed when missing) on 127.0.0.1:LB_PORT in front of the
# merchant servers on 127.0.0.1:PORT..., with health checks on /health every 500 ms (a server
# answering 503 - draining or without its database - is taken out after 2 failed checks and put
# back after 2 good ones). Prints HAProxy's pid. The configuration is written to DIR/haproxy.cfg.
#
#   bash Tools/haproxy.sh DIR LB_PORT PORT [PORT ...]
set -euo pipefail
DIR="$1"; LB_PORT="$2"; shift 2
if ! command -v haproxy >/dev/null 2>&1; then
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null
fi
{
  cat <<CFG
global
  maxconn 4096
  log stderr format raw local0 warning
defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  retries 2
  option redispatch
frontend paysheet
  bind 127.0.0.1:${LB_PORT}
  default_backend servers
backend servers
  balance roundrobin
  option httpchk GET /health
  http-check expect status 200
  # At most 100 connections to a server, below its per-address cap (128: every connection comes
  # from the proxy); more requests wait in the proxy's queue. docs/server.md "Under hostile traffic".
  default-server inter 500ms fall 2 rise 2 maxconn 100
CFG
  n=0
  for port in "$@"; do
    n=$((n + 1))
    echo "  server s${n} 127.0.0.1:${port} check"
  done
} > "$DIR/haproxy.cfg"
haproxy -f "$DIR/haproxy.cfg" -D -p "$DIR/haproxy.pid" >"$DIR/haproxy.log" 2>&1
cat "$DIR/haproxy.pid"
