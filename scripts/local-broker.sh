#!/usr/bin/env bash
# Install the runtime and the embedded broker (no test extras, no apt-get) and run one local Kafka-protocol broker
# until Ctrl-C. Extra arguments go to `replikafka local-broker` (--port N, --cluster-id NAME); see docs/brokers.md.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh demo
exec .venv/bin/python -m replikafka.broker_cli "$@"
