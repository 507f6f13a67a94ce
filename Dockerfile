# syntax=docker/dockerfile:1
# replikafka: Kafka Connect / MirrorMaker 2 compatible worker. Two images:
#   docker build -t replikafka .                            slim (the default): worker and MirrorMaker 2
#   docker build --target spark -t replikafka:spark .       slim + PySpark and a Java 17 runtime, for backfills
#   docker run replikafka distributed /etc/replikafka/worker.properties
#   docker run replikafka mirror-maker /etc/replikafka/mm2.properties [--clusters B]
# The default (last) stage is the slim image: replication needs neither Spark nor a JVM. Only backfill
# tasks (connectors/mirror/backfill_task.py) need the spark image.

FROM python:3.11-slim-bookworm AS build
WORKDIR /src
RUN python -m venv /opt/replikafka
ENV PATH=/opt/replikafka/bin:$PATH
COPY pyproject.toml README.md ./
COPY pyconnect ./pyconnect
COPY connectors ./connectors
COPY rest ./rest
COPY replikafka ./replikafka
COPY examples ./examples
# DL3013: this installs the repository itself ('.'), whose dependency ranges live in pyproject.toml.
# hadolint ignore=DL3013
RUN pip install --no-cache-dir .

# The same venv with the spark extra added.
FROM build AS build-spark
# hadolint ignore=DL3013
RUN pip install --no-cache-dir '.[spark]'

# What both images share: tini, the non-root user, the examples, ports, the health check and the entrypoint.
FROM python:3.11-slim-bookworm AS runtime
RUN apt-get update \
    && apt-get install -y --no-install-recommends tini=0.19.* \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --uid 10001 --no-create-home --shell /usr/sbin/nologin connect \
    && mkdir -p /etc/replikafka && chown 10001 /etc/replikafka
COPY examples /usr/share/replikafka/examples
ENV PATH=/opt/replikafka/bin:$PATH \
    PYTHONUNBUFFERED=1
USER 10001
EXPOSE 8083 9404
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8083/health', timeout=4).status == 200 else 1)"]
# tini forwards SIGTERM to the worker, which leaves the cluster and commits offsets before exiting.
ENTRYPOINT ["tini", "--", "replikafka"]
CMD ["distributed", "/etc/replikafka/worker.properties"]

# For backfills: a Java 17 runtime for PySpark. JAVA_HOME is where the installed `java` really lives
# (/usr/lib/jvm/java-17-openjdk-<arch>), linked to a fixed path at build time, so any architecture works.
FROM runtime AS spark
USER 0
RUN apt-get update \
    && apt-get install -y --no-install-recommends openjdk-17-jre-headless=17.* \
    && rm -rf /var/lib/apt/lists/* \
    && ln -s "$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")" /opt/java
ENV JAVA_HOME=/opt/java
COPY --from=build-spark /opt/replikafka /opt/replikafka
USER 10001

# The default target: worker and MirrorMaker 2, no Spark and no JVM.
FROM runtime AS slim
COPY --from=build /opt/replikafka /opt/replikafka
