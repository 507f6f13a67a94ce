#!/usr/bin/env bash
# Create .venv (Python >= 3.11) and install the project with its test extras. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  for candidate in python3.11 python3.12 python3.13 python3; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
      PY="$candidate"; break
    fi
  done
fi
[ -n "$PY" ] || { echo "error: Python >= 3.11 is required" >&2; exit 1; }
# Debian packages the tests use (real TLS endpoints: stunnel in front of the test brokers; the operator
# console's browser test: headless Chromium and its WebDriver; the alert rules' tests: promtool, in
# Debian's prometheus package).
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
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# Install once per pyproject.toml: the demo and test commands run this first, and pip's build output
# would bury their own. pip writes to .venv/setup.log; on failure its tail is shown.
stamp=".venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)"
if [ ! -e "$stamp" ]; then
  echo "installing replikafka and its dependencies into .venv (log: .venv/setup.log) ..." >&2
  if ! { .venv/bin/python -m pip install --upgrade pip && .venv/bin/python -m pip install -e '.[test]'; } \
      > .venv/setup.log 2>&1; then
    tail -n 40 .venv/setup.log >&2
    echo "error: installing into .venv failed (full log: .venv/setup.log)" >&2
    exit 1
  fi
  rm -f .venv/.installed-*
  touch "$stamp"
fi
