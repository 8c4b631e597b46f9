#!/usr/bin/env bash
# Runs a command (by default the whole test suite) with a WebDriver for the browser tests of
# the game pages:
#
#   1. Chromium and its WebDriver from Debian's packages (`apt-get install chromium
#      chromium-driver`) when chromedriver is missing;
#   2. chromedriver started on a free port of 127.0.0.1, answering only local clients;
#   3. the command run with PIGEON_TEST_WEBDRIVER set to its URL (the tests start headless
#      Chromium sessions through it, with CHROMIUM_BIN as the browser when set);
#   4. chromedriver stopped by its PID when the script exits, however it exits.
set -euo pipefail
cd "$(dirname "$0")/.."

find_driver() {
    command -v chromedriver 2>/dev/null || { [ -x /usr/bin/chromedriver ] && echo /usr/bin/chromedriver; } || true
}

driver="$(find_driver)"
if [ -z "$driver" ]; then
    echo "chromium.sh: installing Chromium and chromedriver from Debian's packages" >&2
    if [ "$(id -u)" -ne 0 ]; then
        echo "chromium.sh: chromedriver is missing; run as root or apt-get install chromium chromium-driver" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium chromium-driver >/dev/null
    driver="$(find_driver)"
fi
if [ -z "$driver" ]; then
    echo "chromium.sh: no chromedriver after installing chromium-driver" >&2
    exit 1
fi
if [ -z "${CHROMIUM_BIN:-}" ]; then
    for candidate in /usr/bin/chromium /usr/lib/chromium/chromium; do
        if [ -x "$candidate" ]; then
            export CHROMIUM_BIN="$candidate"
            break
        fi
    done
fi

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
log="$(mktemp "${TMPDIR:-/tmp}/pigeon-chromedriver.XXXXXX")"
"$driver" --port="$port" --allowed-ips=127.0.0.1 >"$log" 2>&1 &
pid=$!
stop() {
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    rm -f "$log"
}
trap stop EXIT

url="http://127.0.0.1:$port"
for _ in $(seq 1 100); do
    if python3 -c "import urllib.request; urllib.request.urlopen('$url/status', timeout=2)" 2>/dev/null; then
        break
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "chromium.sh: chromedriver did not start; its log:" >&2
        cat "$log" >&2 || true
        exit 1
    fi
    sleep 0.1
done

echo "chromium.sh: $("$driver" --version | head -n 1) on $url (PID $pid)" >&2
export PIGEON_TEST_WEBDRIVER="$url"
if [ "$#" -eq 0 ]; then
    set -- cargo test --all-features --locked -- --include-ignored
fi
"$@"
