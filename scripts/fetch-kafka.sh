#!/usr/bin/env bash
# Fetch Apache Kafka's jars (broker, Connect, MirrorMaker 2, tools, logging) for the test bed, once per version.
#   bash scripts/fetch-kafka.sh            every lane in scripts/kafka-versions (4.x and 3.9)
#   bash scripts/fetch-kafka.sh 3.9        one lane
# Jars go to $REPLIKAFKA_KAFKA_CACHE/kafka-<version>/libs (default ~/.cache/replikafka), outside the repository.
# A stamp per version and pom makes every later run offline: Maven is called only when the stamp is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
CACHE="${REPLIKAFKA_KAFKA_CACHE:-$HOME/.cache/replikafka}"
LOG4J2=2.24.3            # the log4j2 the 4.x binary distribution ships
SLF4J1=1.7.36            # Kafka stays on slf4j 1.7 in 3.9 and 4.x: bindings must be for slf4j 1
DEPENDENCY_PLUGIN=3.8.1

dep() { printf '    <dependency><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version></dependency>\n' "$@"; }

logging_deps() {  # the binary distribution adds these itself; the poms do not pull all of them
  case "$1" in
    3.*) dep org.slf4j slf4j-reload4j "$SLF4J1" ;;
    *) dep org.apache.logging.log4j log4j-api "$LOG4J2"; dep org.apache.logging.log4j log4j-core "$LOG4J2"
       dep org.apache.logging.log4j log4j-slf4j-impl "$LOG4J2" ;;
  esac
}

fetch() {
  local version="$1" dest="$CACHE/kafka-$1" work pom stamp
  work="$(mktemp -d)"
  pom="$work/pom.xml"
  logging_deps "$version" > "$work/logging"
  sed -e "s/@KAFKA_VERSION@/$version/g" -e "/@LOGGING@/{r $work/logging" -e 'd}' "$here/kafka-pom.xml" > "$pom"
  stamp="$dest/.fetched-$(sha256sum "$pom" | cut -c1-16)"
  if [ -e "$stamp" ]; then rm -rf "$work"; return 0; fi
  command -v mvn >/dev/null 2>&1 || { echo "error: cannot fetch Apache Kafka $version: Maven (mvn) is not installed" >&2; return 1; }
  echo "fetching Apache Kafka $version with Maven into $dest/libs ..." >&2
  rm -rf "$dest/libs.partial"
  mkdir -p "$dest"
  if ! mvn -B -q -f "$pom" "org.apache.maven.plugins:maven-dependency-plugin:$DEPENDENCY_PLUGIN:copy-dependencies" \
      -DincludeScope=runtime -DoutputDirectory="$dest/libs.partial" > "$work/mvn.log" 2>&1; then
    tail -n 20 "$work/mvn.log" >&2
    echo "error: Maven could not fetch Apache Kafka $version (full log: $work/mvn.log)" >&2
    return 1
  fi
  # Swap in the complete set only: an interrupted fetch leaves no half-filled libs/ and no stamp.
  rm -rf "$dest/libs" "$dest"/.fetched-*
  mv "$dest/libs.partial" "$dest/libs"
  touch "$stamp"
  rm -rf "$work"
}

wanted="${1:-}"
found=""
while read -r lane version; do
  case "$lane" in ''|'#'*) continue ;; esac
  if [ -z "$wanted" ] || [ "$wanted" = "$lane" ] || [ "$wanted" = "$version" ]; then
    found=1
    fetch "$version"
  fi
done < "$here/kafka-versions"
[ -n "$found" ] || { echo "error: no Kafka lane or version '$wanted' in $here/kafka-versions" >&2; exit 2; }
