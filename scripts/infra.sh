#!/usr/bin/env bash
# Local infrastructure for development, tests and `make run`: Postgres and NATS with JetStream.
#
#   scripts/infra.sh ensure   make both reachable at DATABASE_URL / NATS_URL and create the database
#   scripts/infra.sh status   say what answers, change nothing
#   scripts/infra.sh stop     stop the private instances under .local/ (never the system services)
#
# `ensure` tries, in order: the Debian system services (localhost and default port only), then private
# instances under .local/ started from whatever server binaries are installed, then gives up with what
# to install. Private instances are keyed by port (.local/postgres-<port>, .local/nats-<port>) so two
# checkouts or two test setups on different ports never share a data directory.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LOCAL="$ROOT/.local"
DATABASE_URL="${DATABASE_URL:-postgres://postgres@localhost:5432/mdp}"
NATS_URL="${NATS_URL:-nats://localhost:4222}"
WAIT_SECONDS="${INFRA_WAIT_SECONDS:-20}"
STARTED_PID="" # a private server started by this run, watched while waiting for it
STARTED_LOG=""

say() { printf 'infra: %s\n' "$*"; }
warn() { printf 'infra: %s\n' "$*" >&2; }
die() {
  warn "ERROR: $*"
  exit 1
}

# ---------------------------------------------------------------------------------------------------
# URL parsing (plain bash; hosts in brackets and multi-host URLs are out of scope)

parse_pg_url() {
  local re='^(postgres|postgresql)://(([^:@/]*)(:([^@/]*))?@)?([^:/?]*)(:([0-9]+))?(/([^?]*))?(\?.*)?$'
  [[ "$DATABASE_URL" =~ $re ]] || die "cannot parse DATABASE_URL='$DATABASE_URL' (expected postgres://user@host:port/db)"
  PG_USER="${BASH_REMATCH[3]:-postgres}"
  PG_HOST="${BASH_REMATCH[6]:-localhost}"
  PG_PORT="${BASH_REMATCH[8]:-5432}"
  PG_DB="${BASH_REMATCH[10]:-$PG_USER}"
  PG_QUERY="${BASH_REMATCH[11]:-}"
  # The same server, the `postgres` maintenance database: for probing and CREATE DATABASE.
  [[ "$DATABASE_URL" =~ ^([a-z]+://[^/?]*) ]]
  PG_MAINT_URL="${BASH_REMATCH[1]}/postgres$PG_QUERY"
}

parse_nats_url() {
  local first="${NATS_URL%%,*}" re='^(nats://|tls://)?(([^@/]*)@)?([^:/]*)(:([0-9]+))?/?$'
  [[ "$first" =~ $re ]] || die "cannot parse NATS_URL='$NATS_URL' (expected nats://host:port)"
  NATS_HOST="${BASH_REMATCH[4]:-localhost}"
  NATS_PORT="${BASH_REMATCH[6]:-4222}"
}

is_local_host() { [[ "$1" == localhost || "$1" == 127.0.0.1 || "$1" == ::1 ]]; }
tcp_host() { if [[ "$1" == localhost ]]; then echo 127.0.0.1; else echo "$1"; fi; }

# ---------------------------------------------------------------------------------------------------
# Probes

pg_bin() {
  # A server-side tool: on PATH, or in the newest /usr/lib/postgresql/<major>/bin.
  local name="$1" path
  for path in "$(command -v "$name" 2>/dev/null)" $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r | sed "s|\$|/$name|"); do
    [[ -n "$path" && -f "$path" && -x "$path" ]] && echo "$path" && return 0
  done
  return 1
}

tcp_open() { (exec 3<>"/dev/tcp/$(tcp_host "$1")/$2") 2>/dev/null; }

pg_up() {
  local isready
  if isready="$(pg_bin pg_isready)"; then
    # 0 accepting, 1 rejecting (starting up), 2 no answer; anything else means the tool itself failed.
    local rc=0
    "$isready" -q -t 2 -d "$PG_MAINT_URL" >/dev/null 2>&1 || rc=$?
    ((rc <= 2)) && return "$rc"
  fi
  tcp_open "$PG_HOST" "$PG_PORT"
}

# NATS greets every connection with `INFO {...}`; the JSON says "jetstream":true when it is enabled.
nats_info() {
  local line
  exec 3<>"/dev/tcp/$(tcp_host "$NATS_HOST")/$NATS_PORT" || return 1
  IFS= read -r -t 2 line <&3 || true
  exec 3>&-
  [[ "$line" == INFO* ]] || return 1
  printf '%s' "$line"
}
nats_up() { nats_info >/dev/null 2>&1; }
nats_has_jetstream() { nats_info 2>/dev/null | grep -q '"jetstream":true'; }

# wait_for <label> <probe-fn>: polls for WAIT_SECONDS with a progress line every few seconds.
wait_for() {
  local label="$1" probe="$2" i
  for ((i = 0; i < WAIT_SECONDS * 4; i++)); do
    if "$probe"; then
      say "$label is up"
      return 0
    fi
    if [[ -n "$STARTED_PID" ]] && ! kill -0 "$STARTED_PID" 2>/dev/null; then
      warn "the process started for $label exited; last lines of $STARTED_LOG:"
      tail -n 5 "$STARTED_LOG" "${STARTED_LOG%/*}/nats.out" 2>/dev/null | sed 's/^/    /' >&2
      return 1
    fi
    if ((i > 0 && i % 12 == 0)); then say "  still waiting for $label ($((i / 4))s of ${WAIT_SECONDS}s)"; fi
    sleep 0.25
  done
  warn "$label did not answer within ${WAIT_SECONDS}s"
  return 1
}

# Runs a command with root privileges when we have them or can get them without a password prompt.
as_root() {
  if [[ $EUID -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo -n "$@"
  else
    warn "not root and no passwordless sudo: cannot run $1"
    return 1
  fi
}

# Postgres refuses to run as root; private instances then run as the `postgres` (or `nobody`) user.
pg_run_user() {
  if [[ $EUID -ne 0 ]]; then return 0; fi
  if id postgres >/dev/null 2>&1; then echo postgres; else echo nobody; fi
}
as_pg_user() {
  local user
  user="$(pg_run_user)"
  if [[ -z "$user" ]]; then "$@"; else runuser -u "$user" -- "$@"; fi
}

# ---------------------------------------------------------------------------------------------------
# (a) Debian system services

start_system_postgres() {
  [[ -x /usr/bin/pg_ctlcluster && -d /etc/postgresql ]] || return 1
  is_local_host "$PG_HOST" && [[ "$PG_PORT" == 5432 ]] || return 1
  local version
  version="$(ls /etc/postgresql | sort -V | tail -n 1)"
  [[ -n "$version" && -d "/etc/postgresql/$version/main" ]] || return 1
  if as_root pg_ctlcluster --skip-systemctl-redirect "$version" main status >/dev/null 2>&1; then
    say "the system Postgres cluster $version/main is running but not answering yet"
    return 0
  fi
  say "starting the system Postgres cluster $version/main"
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start || {
    warn "could not start the system cluster $version/main; trying a private instance"
    return 1
  }
}

start_system_nats() {
  [[ -x /usr/sbin/nats-server ]] && command -v start-stop-daemon >/dev/null 2>&1 || return 1
  is_local_host "$NATS_HOST" && [[ "$NATS_PORT" == 4222 ]] || return 1
  say "starting the system nats-server (JetStream on, store /var/lib/nats-server)"
  # The pid file keeps a private instance of the same binary from passing for the system one.
  as_root start-stop-daemon --start --oknodo --background --pidfile /run/mdp-nats-server.pid --make-pidfile \
    --exec /usr/sbin/nats-server -- \
    -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log || {
    warn "could not start the system nats-server; trying a private instance"
    return 1
  }
}

# ---------------------------------------------------------------------------------------------------
# (b) private instances under .local/

start_private_postgres() {
  is_local_host "$PG_HOST" || return 1
  local initdb pg_ctl dir="$LOCAL/postgres-$PG_PORT" user
  initdb="$(pg_bin initdb)" && pg_ctl="$(pg_bin pg_ctl)" || return 1
  user="$(pg_run_user)"
  mkdir -p "$dir/run"
  if [[ -n "$user" ]]; then
    chown -R "$user" "$dir"
    runuser -u "$user" -- test -w "$dir" || die "$user cannot write $dir (a parent folder is closed to it); run as a normal user or point DATABASE_URL at a running server"
  fi
  if [[ ! -f "$dir/data/PG_VERSION" ]]; then
    say "initialising a private Postgres in ${dir#"$ROOT/"} (superuser $PG_USER, trust auth)"
    as_pg_user "$initdb" -D "$dir/data" -U "$PG_USER" --auth=trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
      die "initdb failed; see $dir/initdb.log"
  fi
  say "starting the private Postgres on port $PG_PORT (log ${dir#"$ROOT/"}/postgres.log)"
  # listen_addresses stays 'localhost'; the socket lives in the instance folder, not /var/run.
  as_pg_user "$pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -s -o "-p $PG_PORT -k $dir/run" start ||
    die "pg_ctl start failed; see $dir/postgres.log"
}

start_private_nats() {
  is_local_host "$NATS_HOST" || return 1
  local bin dir="$LOCAL/nats-$NATS_PORT"
  for bin in "$(command -v nats-server 2>/dev/null)" /usr/sbin/nats-server ""; do
    [[ -n "$bin" && -f "$bin" && -x "$bin" ]] && break
  done
  [[ -n "$bin" ]] || return 1
  mkdir -p "$dir/jetstream"
  if [[ -f "$dir/nats.pid" ]] && kill -0 "$(cat "$dir/nats.pid")" 2>/dev/null; then
    die "a private nats-server (pid $(cat "$dir/nats.pid")) runs but port $NATS_PORT does not answer; run scripts/infra.sh stop"
  fi
  say "starting a private nats-server on port $NATS_PORT with JetStream (store ${dir#"$ROOT/"}/jetstream)"
  # setsid + nohup: the server outlives this script and the terminal it was started from.
  setsid nohup "$bin" -a "$(tcp_host "$NATS_HOST")" -p "$NATS_PORT" -js -sd "$dir/jetstream" \
    -P "$dir/nats.pid" -l "$dir/nats.log" </dev/null >"$dir/nats.out" 2>&1 &
  STARTED_PID=$!
  STARTED_LOG="$dir/nats.log"
}

# ---------------------------------------------------------------------------------------------------
# (c) nothing to start

install_hint() {
  warn "ERROR: $1"
  warn "  Install the servers (Debian/Ubuntu):  sudo apt-get install postgresql nats-server"
  warn "  or point DATABASE_URL / NATS_URL at servers that are already running, e.g."
  warn "    DATABASE_URL=postgres://postgres@db.example:5432/mdp NATS_URL=nats://nats.example:4222 make test"
  exit 1
}

# ---------------------------------------------------------------------------------------------------

ensure_postgres() {
  parse_pg_url
  local where="Postgres at $PG_HOST:$PG_PORT"
  if pg_up; then
    say "$where answers"
  else
    say "$where does not answer"
    if start_system_postgres || start_private_postgres; then
      wait_for "$where" pg_up || die "$where is not ready"
    elif is_local_host "$PG_HOST"; then
      install_hint "no Postgres server binaries found (looked for pg_ctlcluster, initdb and pg_ctl)"
    else
      install_hint "$where is not reachable and is not on this machine"
    fi
  fi
  ensure_database
}

# Creates the database named in DATABASE_URL when the server is up but the database is missing.
ensure_database() {
  local exists
  if command -v psql >/dev/null 2>&1; then
    # psql interpolates :'db' only in scripts, not in -c; so the SQL goes through stdin.
    exists="$(printf "SELECT 1 FROM pg_database WHERE datname = :'db';\n" |
      psql "$PG_MAINT_URL" -XAtq -v ON_ERROR_STOP=1 -v db="$PG_DB")" ||
      die "cannot query $PG_HOST:$PG_PORT as $PG_USER (check DATABASE_URL credentials)"
    if [[ "$exists" != 1 ]]; then
      say "creating database \"$PG_DB\""
      printf 'CREATE DATABASE :"db";\n' | psql "$PG_MAINT_URL" -XAtq -v ON_ERROR_STOP=1 -v db="$PG_DB" >/dev/null ||
        die "could not create database \"$PG_DB\""
    fi
  elif [[ -f "$ROOT/node_modules/pg/package.json" ]]; then
    # No psql client here (e.g. a remote server): the pg driver from node_modules does the same.
    (cd "$ROOT" && node --input-type=module -e '
      import pg from "pg";
      const [url, db] = process.argv.slice(1);
      const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
      await c.connect();
      const { rowCount } = await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [db]);
      if (rowCount === 0) {
        console.log(`infra: creating database "${db}"`);
        await c.query(`CREATE DATABASE "${db.replaceAll("\"", "\"\"")}"`);
      }
      await c.end();
    ' "$PG_MAINT_URL" "$PG_DB") || die "cannot check or create database \"$PG_DB\" (check DATABASE_URL)"
  else
    die "neither psql nor node_modules/pg is available to check that database \"$PG_DB\" exists (run npm ci)"
  fi
  say "database \"$PG_DB\" is ready"
}

ensure_nats() {
  parse_nats_url
  local where="NATS at $NATS_HOST:$NATS_PORT"
  if nats_up; then
    say "$where answers"
  else
    say "$where does not answer"
    if start_system_nats || start_private_nats; then
      wait_for "$where" nats_up || die "$where is not ready"
    elif is_local_host "$NATS_HOST"; then
      install_hint "no nats-server binary found (looked on PATH and in /usr/sbin)"
    else
      install_hint "$where is not reachable and is not on this machine"
    fi
  fi
  nats_has_jetstream || die "$where answers but JetStream is off; start nats-server with -js (or --jetstream)"
  say "JetStream is enabled"
}

stop_private() {
  local dir pid stopped=0 pg_ctl i
  shopt -s nullglob
  for dir in "$LOCAL"/postgres-*; do
    [[ -f "$dir/data/postmaster.pid" ]] || continue
    pg_ctl="$(pg_bin pg_ctl)" || die "pg_ctl not found; cannot stop $dir"
    say "stopping the private Postgres in ${dir#"$ROOT/"}"
    as_pg_user "$pg_ctl" -D "$dir/data" -s -m fast -w stop || warn "pg_ctl stop failed for $dir"
    stopped=1
  done
  for dir in "$LOCAL"/nats-*; do
    [[ -f "$dir/nats.pid" ]] || continue
    pid="$(cat "$dir/nats.pid")"
    if kill -0 "$pid" 2>/dev/null; then
      say "stopping the private nats-server in ${dir#"$ROOT/"} (pid $pid)"
      kill -TERM "$pid"
      for ((i = 0; i < 40; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      kill -0 "$pid" 2>/dev/null && { warn "nats-server $pid ignored SIGTERM; sending SIGKILL"; kill -KILL "$pid"; }
      stopped=1
    fi
    rm -f "$dir/nats.pid"
  done
  ((stopped)) || say "no private instances are running"
}

status() {
  parse_pg_url
  parse_nats_url
  if pg_up; then say "Postgres $PG_HOST:$PG_PORT: up"; else say "Postgres $PG_HOST:$PG_PORT: down"; fi
  if nats_has_jetstream; then
    say "NATS $NATS_HOST:$NATS_PORT: up, JetStream on"
  elif nats_up; then
    say "NATS $NATS_HOST:$NATS_PORT: up, JetStream OFF"
  else
    say "NATS $NATS_HOST:$NATS_PORT: down"
  fi
}

case "${1:-}" in
ensure)
  ensure_postgres
  ensure_nats
  ;;
status) status ;;
stop) stop_private ;;
*)
  echo "usage: $0 ensure|status|stop" >&2
  exit 2
  ;;
esac
