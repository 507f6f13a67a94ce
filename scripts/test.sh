#!/usr/bin/env bash
# Install everything the tests need (setup.sh test: the test extras and Debian packages), then run the checks
# (ruff, mypy, import layers, the docs site's strict build) and the test suite against real local brokers.
# Extra arguments go to pytest (e.g. `-m slow` for the soak and benchmark runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/lint-imports  # the layer contracts in pyproject.toml (docs/architecture.md)
# The docs site, with the reference generated from the code (docs/hooks.py): any warning fails the build
# (not with --quiet: it hides the warnings from the strict check too).
site_dir="$(mktemp -d)"
trap 'rm -rf "$site_dir"' EXIT
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --site-dir "$site_dir"
rm -rf "$site_dir"
trap - EXIT
exec .venv/bin/python -m pytest "$@"
