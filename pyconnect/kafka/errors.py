"""Errors the client reports, in the project's terms: their text, and the tests callers need.

confluent-kafka reports a failure either as a `KafkaError` (delivery callbacks, consumer messages,
error callbacks) or as a `KafkaException` carrying one (client calls). Code outside this package
only sees the names below, so it does not depend on that layout.
"""

from __future__ import annotations

import confluent_kafka as ck

# What the client's produce raises when it refuses a record outright (larger than the producer
# allows, unknown partition, fatal producer state); `error_text` gives the reason. A full local
# queue is the builtin `BufferError` instead, which means "wait for room", not "refused".
RecordRefused = ck.KafkaException


def error_text(error: object) -> str:
    """The client's own description of an error: of a `KafkaError`, of the `KafkaError` a raised
    `KafkaException` carries, or `str()` of anything else (e.g. an exception of ours)."""
    if isinstance(error, ck.KafkaException) and error.args:
        error = error.args[0]
    # Duck-typed rather than isinstance: whatever a delivery callback hands over that has the
    # client's `str()` method is described the way the client describes it.
    text = getattr(error, "str", None)
    return str(text()) if callable(text) else str(error)


def is_partition_eof(error: object) -> bool:
    """A consumer's end-of-partition event (`enable.partition.eof`): a position, not a failure."""
    return isinstance(error, ck.KafkaError) and error.code() == ck.KafkaError._PARTITION_EOF
