#!/usr/bin/env bash
# Pause or resume a connector and wait until every task shows the new state.
# Usage: pause-resume.sh pause|resume NAME
. "$(dirname "$0")/_common.sh"
action=${1:?usage: pause-resume.sh pause|resume NAME}; name=${2:?connector name}
case "$action" in pause) want=PAUSED ;; resume) want=RUNNING ;; *) echo "pause or resume" >&2; exit 2 ;; esac
"${CURL[@]}" -X PUT "$CONNECT_URL/connectors/$name/$action" >/dev/null
wait_for "/connectors/$name/status" ".connector.state == \"$want\" and all(.tasks[]; .state == \"$want\")" 30
echo "$name is $want"
