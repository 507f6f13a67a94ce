# syntax=docker/dockerfile:1
# pyconnect (distribution: replikafka): Kafka Connect / MirrorMaker 2 compatible worker.
#   docker build -t replikafka .
#   docker run replikafka distributed /etc/pyconnect/worker.properties
#   docker run replikafka mirror-maker /etc/pyconnect/mm2.properties [--clusters B]

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
RUN pip install --no-cache-dir '.[spark]'

FROM python:3.11-slim-bookworm
# A Java 17 runtime for PySpark (backfill tasks); curl-free health check uses Python.
RUN apt-get update \
    && apt-get install -y --no-install-recommends openjdk-17-jre-headless=17.* tini=0.19.* \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --uid 10001 --no-create-home --shell /usr/sbin/nologin connect \
    && mkdir -p /etc/pyconnect && chown 10001 /etc/pyconnect
COPY --from=build /opt/replikafka /opt/replikafka
COPY examples /usr/share/replikafka/examples
ENV PATH=/opt/replikafka/bin:$PATH \
    JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64 \
    PYTHONUNBUFFERED=1
USER 10001
EXPOSE 8083 9404
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8083/health', timeout=4).status == 200 else 1)"]
# tini forwards SIGTERM to the worker, which leaves the cluster and commits offsets before exiting.
ENTRYPOINT ["tini", "--", "pyconnect"]
CMD ["distributed", "/etc/pyconnect/worker.properties"]
