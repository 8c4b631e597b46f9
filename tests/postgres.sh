#!/usr/bin/env bash
# Runs a command (by default the whole test suite) with a throwaway PostgreSQL server on
# 127.0.0.1 for the tests that run on PostgreSQL:
#
#   1. PostgreSQL from Debian's packages (`apt-get install postgresql`) when its programs are
#      missing, found in /usr/lib/postgresql/<version>/bin whatever the version;
#   2. a fresh cluster (initdb) in a temporary folder, owned by and run as an unprivileged
#      user when this script runs as root (PostgreSQL refuses to run as root);
#   3. the server on a free port of 127.0.0.1, its socket inside the temporary folder, trust
#      authentication for the superuser `pigeon`;
#   4. the command run with PIGEON_TEST_POSTGRES set to the server's URL: each test creates
#      a database of its own there;
#   5. the server stopped by its PID and the folder removed when the script exits, however
#      it exits.
set -euo pipefail
cd "$(dirname "$0")/.."

bin_dir() {
    if [ -n "${PG_BIN:-}" ]; then
        echo "$PG_BIN"
        return
    fi
    find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -type d -name bin 2>/dev/null | sort -V | tail -n 1
}

bin="$(bin_dir)"
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    echo "postgres.sh: installing PostgreSQL from Debian's packages" >&2
    if [ "$(id -u)" -ne 0 ]; then
        echo "postgres.sh: PostgreSQL is missing; run as root or apt-get install postgresql" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq postgresql >/dev/null
    bin="$(bin_dir)"
fi
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    echo "postgres.sh: no initdb under /usr/lib/postgresql/*/bin" >&2
    exit 1
fi

base="$(mktemp -d "${TMPDIR:-/tmp}/pigeon-postgres.XXXXXX")"
data="$base/data"
# PostgreSQL will not run as root: the cluster belongs to `nobody` then.
as_owner=()
if [ "$(id -u)" -eq 0 ]; then
    owner="${PIGEON_TEST_POSTGRES_USER:-nobody}"
    chown "$owner" "$base"
    as_owner=(runuser -u "$owner" --)
fi
chmod 0755 "$base"

pid=""
stop() {
    if [ -n "$pid" ]; then
        # SIGINT: PostgreSQL's fast shutdown.
        kill -INT "$pid" 2>/dev/null || true
        for _ in $(seq 1 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
    fi
    rm -rf "$base"
}
trap stop EXIT

"${as_owner[@]}" "$bin/initdb" --pgdata="$data" --username=pigeon --auth=trust \
    --encoding=UTF8 --locale=C.UTF-8 >"$base/initdb.log" 2>&1 || {
    echo "postgres.sh: initdb failed; its log:" >&2
    cat "$base/initdb.log" >&2
    exit 1
}

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
# The cluster is thrown away after the run, so it skips flushing to disk (fsync=off); each
# test's connections still ask for synchronous_commit=on, as Pigeon always does.
"${as_owner[@]}" "$bin/pg_ctl" start --pgdata="$data" --log="$base/server.log" --wait \
    --options="-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$base \
    -c max_connections=300 -c fsync=off -c full_page_writes=off" >/dev/null || {
    echo "postgres.sh: PostgreSQL did not start; its log:" >&2
    tail -n 40 "$base/server.log" >&2 || true
    exit 1
}
pid="$(head -n 1 "$data/postmaster.pid")"

url="postgres://pigeon@127.0.0.1:$port/postgres"
echo "postgres.sh: PostgreSQL $("$bin/postgres" --version | awk "{print \$3}") on $url (PID $pid)" >&2
export PIGEON_TEST_POSTGRES="$url"
if [ "$#" -eq 0 ]; then
    set -- cargo test --all-features --locked -- --include-ignored
fi
"$@"
