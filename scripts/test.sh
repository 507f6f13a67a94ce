#!/usr/bin/env bash
# Install everything the tests need (setup.sh test: the test extras and Debian packages), then run the checks
# (ruff, mypy, import layers) and the test suite against real local brokers.
# Extra arguments go to pytest (e.g. `-m slow` for the soak and benchmark runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/lint-imports  # the layer contracts in pyproject.toml (docs/architecture.md)
exec .venv/bin/python -m pytest "$@"
