"""Connect's exceptions that plugins raise and the runtime acts on (org.apache.kafka.connect.errors)."""

from __future__ import annotations


class ConnectException(Exception):
    """Connect's ConnectException: a failure of a connector, task or the runtime."""


class RetriableException(ConnectException):
    """Connect's RetriableException: the operation may succeed if tried again (a sink task's `put` is
    then called again with the same records; error handling retries the step)."""
