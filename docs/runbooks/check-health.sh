#!/usr/bin/env bash
# Worker health plus a one-line state per connector; exits 1 if anything is FAILED or unhealthy.
# Usage: check-health.sh
. "$(dirname "$0")/_common.sh"
health=$("${CURL_RAW[@]}" "$CONNECT_URL/health" || true)
echo "worker: $(echo "$health" | jq -r '.status + " - " + .message')"
"${CURL[@]}" "$CONNECT_URL/connectors?expand=status" | jq -r 'to_entries[] | .value.status |
  "\(.name): \(.connector.state) [\([.tasks[] | "\(.id)=\(.state)"] | join(" "))]"'
bad=$("${CURL[@]}" "$CONNECT_URL/connectors?expand=status" | jq '[.[] | .status | .connector.state, .tasks[].state | select(. == "FAILED")] | length')
[ "$(echo "$health" | jq -r .status)" = healthy ] && [ "$bad" = 0 ]
