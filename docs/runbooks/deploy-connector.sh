#!/usr/bin/env bash
# Create or update a connector from a JSON file: {"name": ..., "config": {...}} or a flat config with "name".
# Usage: deploy-connector.sh connector.json
. "$(dirname "$0")/_common.sh"
file=${1:?usage: deploy-connector.sh connector.json}
name=$(jq -r '.name // .config.name' "$file")
config=$(jq -c 'if has("config") then .config + {name: .name} else . end' "$file")
"${CURL[@]}" -X PUT "$CONNECT_URL/connectors/$name/config" -d "$config" | jq -r '"deployed \(.name) (\(.type))"'
wait_for "/connectors/$name/status" '.connector.state == "RUNNING" or .connector.state == "PAUSED"' 60
"${CURL[@]}" "$CONNECT_URL/connectors/$name/status" | jq -r '"connector \(.name): \(.connector.state), tasks: \([.tasks[].state] | join(","))"'
