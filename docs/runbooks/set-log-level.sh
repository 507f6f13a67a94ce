#!/usr/bin/env bash
# Change a logger's level on this worker, or on every worker with scope "cluster".
# In dedicated mode set CONNECT_URL to http://host:8083/<source>/<target>: the level is that flow's.
# Usage: set-log-level.sh LOGGER LEVEL [worker|cluster]
. "$(dirname "$0")/_common.sh"
logger=${1:?usage: set-log-level.sh LOGGER LEVEL [worker|cluster]}; level=${2:?level}; scope=${3:-worker}
"${CURL[@]}" -X PUT "$CONNECT_URL/admin/loggers/$logger?scope=$scope" -d "{\"level\": \"$level\"}" >/dev/null
"${CURL[@]}" "$CONNECT_URL/admin/loggers/$logger" | jq -r "\"$logger is now \(.level)\""
