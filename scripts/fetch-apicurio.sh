#!/usr/bin/env bash
# Fetch Apicurio Registry (Confluent-compatible schema registry API, in memory) for the test bed, once.
#   bash scripts/fetch-apicurio.sh
# The release's `quarkus-app/` goes to $REPLIKAFKA_KAFKA_CACHE/apicurio-<version> (default ~/.cache/replikafka),
# outside the repository. A stamp makes every later run offline: Maven is called only when it is missing.
# 3.3.x is the newest line whose release resolves on Maven Central (3.1.x and 3.2.x were never published there,
# 3.0.x's parent pom is missing); it needs Java 21 or newer: pyconnect/testing/apicurio.py finds one.
set -euo pipefail
CACHE="${REPLIKAFKA_KAFKA_CACHE:-$HOME/.cache/replikafka}"
VERSION="${REPLIKAFKA_APICURIO_VERSION:-3.3.3}"
DEPENDENCY_PLUGIN=3.8.1
dest="$CACHE/apicurio-$VERSION"
stamp="$dest/.fetched"
[ -e "$stamp" ] && exit 0
command -v mvn >/dev/null 2>&1 || { echo "error: cannot fetch Apicurio Registry $VERSION: Maven (mvn) is not installed" >&2; exit 1; }
work="$(mktemp -d)"
echo "fetching Apicurio Registry $VERSION with Maven into $dest ..." >&2
if ! (cd "$work" && mvn -B -q "org.apache.maven.plugins:maven-dependency-plugin:$DEPENDENCY_PLUGIN:copy" \
    -Dartifact="io.apicurio:apicurio-registry-app:$VERSION:tar.gz:all" -DoutputDirectory="$work/out") \
    > "$work/mvn.log" 2>&1; then
  tail -n 20 "$work/mvn.log" >&2
  echo "error: Maven could not fetch Apicurio Registry $VERSION (full log: $work/mvn.log)" >&2
  exit 1
fi
# Unpack beside the destination and swap in the whole tree: an interrupted fetch leaves no half-filled copy.
rm -rf "$dest.partial"
mkdir -p "$dest.partial/quarkus-app"
tar -xzf "$work/out/apicurio-registry-app-$VERSION-all.tar.gz" -C "$dest.partial/quarkus-app"
[ -f "$dest.partial/quarkus-app/quarkus-run.jar" ] || { echo "error: no quarkus-run.jar in Apicurio Registry $VERSION's archive" >&2; exit 1; }
rm -rf "$dest"
mv "$dest.partial" "$dest"
touch "$stamp"
rm -rf "$work"
