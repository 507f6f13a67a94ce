#!/usr/bin/env bash
# Restart only the FAILED parts of a connector (connector instance and/or tasks).
# Usage: restart-failed.sh NAME
. "$(dirname "$0")/_common.sh"
name=${1:?usage: restart-failed.sh NAME}
failed=$("${CURL[@]}" "$CONNECT_URL/connectors/$name/status" | jq '[.tasks[] | select(.state == "FAILED") | .id]')
echo "failed tasks before restart: $failed"
"${CURL[@]}" -X POST "$CONNECT_URL/connectors/$name/restart?includeTasks=true&onlyFailed=true" \
  | jq -r '"restarting: \([.tasks[] | select(.state == "RESTARTING") | .id] | tostring)"'
