#!/usr/bin/env bash
# Set everything up and run the demo on embedded local brokers. Extra arguments go to `pyconnect demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/pyconnect demo "$@"
