# Shared settings for the runbooks. Source it; do not run it.
#   CONNECT_URL       REST endpoint of any worker (default http://localhost:8083)
#   CONNECT_USER / CONNECT_PASSWORD   basic-auth credentials, if the cluster requires them
#   CONNECT_CACERT    CA file to verify an https endpoint
set -euo pipefail
CONNECT_URL="${CONNECT_URL:-http://localhost:8083}"
CURL_RAW=(curl -sS -H 'Accept: application/json')
if [ -n "${CONNECT_USER:-}" ]; then CURL_RAW+=(-u "${CONNECT_USER}:${CONNECT_PASSWORD:-}"); fi
if [ -n "${CONNECT_CACERT:-}" ]; then CURL_RAW+=(--cacert "$CONNECT_CACERT"); fi
# CURL fails (exit 22) on HTTP errors and prints Connect's {"error_code","message"} body.
CURL=("${CURL_RAW[@]}" --fail-with-body -H 'Content-Type: application/json')
command -v jq >/dev/null || { echo "jq is required (apt-get install jq)" >&2; exit 1; }

# Wait until `jq -e FILTER` holds on GET PATH, for up to $2 seconds (default 30).
wait_for() {
  local path=$1 filter=$2 timeout=${3:-30} i
  for ((i = 0; i < timeout * 2; i++)); do
    if "${CURL[@]}" "$CONNECT_URL$path" 2>/dev/null | jq -e "$filter" >/dev/null; then return 0; fi
    sleep 0.5
  done
  echo "timed out waiting for $path to satisfy $filter" >&2
  return 1
}
