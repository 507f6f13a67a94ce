#!/usr/bin/env bash
# Stop a connector and delete its committed source offsets (it restarts from scratch when resumed).
# Usage: stop-and-reset-offsets.sh NAME
. "$(dirname "$0")/_common.sh"
name=${1:?usage: stop-and-reset-offsets.sh NAME}
"${CURL[@]}" -X PUT "$CONNECT_URL/connectors/$name/stop" >/dev/null
wait_for "/connectors/$name/status" '.connector.state == "STOPPED" and (.tasks | length) == 0' 30
"${CURL[@]}" -X DELETE "$CONNECT_URL/connectors/$name/offsets" | jq -r .message
"${CURL[@]}" "$CONNECT_URL/connectors/$name/offsets" | jq -r '"offsets left: \(.offsets | length)"'
