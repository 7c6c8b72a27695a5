#!/usr/bin/env bash
# A throwaway Postgres cluster for tests and benchmarks: a temporary directory,
# a free port on loopback, trust authentication, gone after `down`.
#
#   eval "$(scripts/postgres.sh up)"      # exports ASKSEAM_POSTGRES_URL and ASKSEAM_POSTGRES_DIR
#   scripts/postgres.sh stop DIR          # stops the server, keeps the data (a restart test)
#   scripts/postgres.sh start DIR         # starts it again on the same port
#   scripts/postgres.sh restart DIR       # pg_ctl restart -m fast
#   scripts/postgres.sh down DIR          # stops it and removes DIR
#
# Uses the binaries `pg_config --bindir` names (Debian: postgresql-15). initdb
# refuses to run as root, so as root every server command runs as `postgres`.
set -euo pipefail

die() {
  echo "postgres.sh: $*" >&2
  exit 1
}

bindir() {
  local dir
  if command -v pg_config >/dev/null 2>&1; then
    dir="$(pg_config --bindir)"
    [ -x "$dir/initdb" ] && { echo "$dir"; return; }
  fi
  # Debian's pg_config can belong to libpq-dev alone; the server lives here.
  for dir in /usr/lib/postgresql/*/bin; do
    [ -x "$dir/initdb" ] && { echo "$dir"; return; }
  done
  die "no initdb found: install the server (apt-get install -y postgresql)"
}

BIN="$(bindir)"

as_server_user() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  node -e '
    const server = require("net").createServer()
    server.listen(0, "127.0.0.1", () => { console.log(server.address().port); server.close() })
  '
}

server_options() {
  local dir="$1" port
  port="$(cat "$dir/port")"
  # fsync=off: a throwaway cluster does not need to survive a power cut, and
  # the shared test machine does not need the disk traffic. A clean stop (the
  # restart tests) still keeps every committed row.
  echo "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
}

start_server() {
  local dir="$1"
  as_server_user "$BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "$(server_options "$dir")" \
    -w -t 60 start >/dev/null
}

stop_server() {
  as_server_user "$BIN/pg_ctl" -D "$1/data" -m fast -w -t 60 stop >/dev/null
}

up() {
  local dir port
  dir="$(mktemp -d "${TMPDIR:-/tmp}/askseam-pg.XXXXXX")"
  chmod 755 "$dir"
  [ "$(id -u)" = 0 ] && chown postgres: "$dir"
  as_server_user "$BIN/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --no-sync >/dev/null
  # A port taken between the probe and the start makes pg_ctl fail: try again.
  for _ in 1 2 3 4 5; do
    port="$(free_port)"
    echo "$port" >"$dir/port"
    if start_server "$dir" 2>/dev/null; then
      echo "export ASKSEAM_POSTGRES_URL=postgres://postgres@127.0.0.1:$port/postgres"
      echo "export ASKSEAM_POSTGRES_DIR=$dir"
      return
    fi
  done
  cat "$dir/server.log" >&2 || true
  die "the server did not start (log above)"
}

need_dir() {
  [ -n "${1:-}" ] && [ -d "$1/data" ] || die "$2 needs the directory that 'up' printed"
}

case "${1:-}" in
  up) up ;;
  stop) need_dir "${2:-}" stop && stop_server "$2" ;;
  start) need_dir "${2:-}" start && start_server "$2" ;;
  restart)
    need_dir "${2:-}" restart
    as_server_user "$BIN/pg_ctl" -D "$2/data" -l "$2/server.log" -o "$(server_options "$2")" \
      -m fast -w -t 60 restart >/dev/null
    ;;
  down)
    need_dir "${2:-}" down
    stop_server "$2" 2>/dev/null || true
    rm -rf "$2"
    ;;
  *) die "usage: postgres.sh up | stop DIR | start DIR | restart DIR | down DIR" ;;
esac
