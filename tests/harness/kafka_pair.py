"""Two Apache Kafka clusters (A and B) as local JVMs for a test module, both stopped at the end even when the
second fails to start (pyconnect.testing.kafka_jvm)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from pyconnect.testing.kafka_jvm import KafkaBroker, start_kafka_jvm


@contextmanager
def kafka_pair(name: str, *, secure: bool = False, extra_a: Mapping[str, str] | None = None,
               extra_b: Mapping[str, str] | None = None,
               version: str | None = None) -> Iterator[tuple[KafkaBroker, KafkaBroker]]:
    """Clusters `<name>-A` and `<name>-B` (with `extra_*` broker properties; `version` as start_kafka_jvm takes
    it), yielded as (A, B)."""
    a = start_kafka_jvm(f"{name}-A", secure=secure, extra=extra_a, version=version)
    try:
        b = start_kafka_jvm(f"{name}-B", secure=secure, extra=extra_b, version=version)
        try:
            yield a, b
        finally:
            b.stop()
    finally:
        a.stop()
