#!/usr/bin/env bash
# Set everything up and run the checks and the test suite against real local brokers.
# Extra arguments go to pytest (e.g. `-m slow` for the soak and benchmark runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/mypy
exec .venv/bin/python -m pytest "$@"
