#!/usr/bin/env bash
# Runs a command (by default the whole test suite) with a throwaway Synapse homeserver on
# 127.0.0.1 for the Matrix tests:
#
#   1. a Python venv in target/synapse/venv with matrix-synapse (installed on the first run,
#      reused afterwards);
#   2. a fresh server in target/synapse/server: SQLite, a free port on 127.0.0.1, no
#      federation, rate limits out of the way, a registration shared secret;
#   3. the test accounts registered with that secret (see USERS below), all with one password;
#   4. the command run with PIGEON_TEST_MATRIX_URL and PIGEON_TEST_MATRIX_PASSWORD set;
#   5. Synapse stopped by its PID when the script exits, however it exits.
#
# Needs python3 (3.10 or newer) with venv and pip; nothing else is installed on the system.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

SYNAPSE_VERSION="1.163.2"
base="$root/target/synapse"
venv="$base/venv"
server="$base/server"
password="pigeon-test-password"
secret="pigeon-test-shared-secret"
# One set of accounts per Matrix test, so the tests run in parallel without seeing each
# other's bots: <test>-bot, <test>-alice, <test>-bob, <test>-carol.
tests=(plain encrypted restart stranger busy reply direct secure unreadable upgrade failover gap gapcrypt private digest tourney)

python="${PYTHON:-python3}"
installed="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("matrix-synapse"))' 2>/dev/null || true)"
if [ "$installed" != "$SYNAPSE_VERSION" ]; then
    echo "synapse.sh: installing matrix-synapse $SYNAPSE_VERSION into $venv (first run only)" >&2
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "matrix-synapse==$SYNAPSE_VERSION"
fi

rm -rf "$server"
mkdir -p "$server"
port="$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
url="http://127.0.0.1:$port"

# Inside the server's folder: the generated log config names its file from there.
(cd "$server" && "$venv/bin/python" -m synapse.app.homeserver --generate-config \
    --server-name localhost --config-path "$server/homeserver.yaml" \
    --data-directory "$server" --report-stats=no >/dev/null)

# Loaded after the generated file, so these settings win.
fast='{per_second: 10000, burst_count: 100000}'
cat >"$server/pigeon.yaml" <<EOF
listeners:
  - port: $port
    bind_addresses: ['127.0.0.1']
    type: http
    tls: false
    x_forwarded: false
    resources:
      - names: [client]
        compress: false
pid_file: $server/homeserver.pid
registration_shared_secret: "$secret"
enable_registration: false
trusted_key_servers: []
suppress_key_server_warning: true
federation_domain_whitelist: []
presence:
  enabled: false
url_preview_enabled: false
rc_message: $fast
rc_registration: $fast
rc_registration_token_validity: $fast
rc_login:
  address: $fast
  account: $fast
  failed_attempts: $fast
rc_admin_redaction: $fast
rc_joins:
  local: $fast
  remote: $fast
rc_joins_per_room: $fast
rc_invites:
  per_room: $fast
  per_user: $fast
  per_issuer: $fast
rc_3pid_validation: $fast
rc_room_creation: $fast
rc_key_requests: $fast
rc_media_create: $fast
rc_delayed_event_mgmt: $fast
rc_reports: $fast
max_upload_size: 50M
EOF

"$venv/bin/python" -m synapse.app.homeserver \
    --config-path "$server/homeserver.yaml" --config-path "$server/pigeon.yaml" \
    >"$server/stdout.log" 2>&1 &
pid=$!
stop() {
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
trap stop EXIT

for _ in $(seq 1 120); do
    if "$venv/bin/python" -c "import urllib.request; urllib.request.urlopen('$url/_matrix/client/versions', timeout=2)" 2>/dev/null; then
        break
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "synapse.sh: Synapse did not start; its log:" >&2
        tail -n 40 "$server/stdout.log" "$server/homeserver.log" >&2 || true
        exit 1
    fi
    sleep 0.5
done

# register_new_matrix_user's own function, called once per account in one process.
users=""
for test in "${tests[@]}"; do
    users="$users $test-bot $test-alice $test-bob $test-carol"
done
"$venv/bin/python" - "$url" "$secret" "$password" $users <<'EOF'
import sys
from synapse._scripts.register_new_matrix_user import request_registration

url, secret, password, *users = sys.argv[1:]
for user in users:
    request_registration(user, password, url, secret, _print=lambda _: None)
EOF

echo "synapse.sh: Synapse $SYNAPSE_VERSION on $url (PID $pid)" >&2
export PIGEON_TEST_MATRIX_URL="$url"
export PIGEON_TEST_MATRIX_PASSWORD="$password"
if [ "$#" -eq 0 ]; then
    set -- cargo test --all-features --locked -- --include-ignored
fi
"$@"
