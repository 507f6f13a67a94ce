"""Connect's exception types a plugin raises to tell the runtime how to handle a failure.

`RetriableException` asks for the operation to be tried again (within `errors.retry.timeout`);
any other exception is not retried. Each class names its Java counterpart in `java_class_name`, the
name a dead letter queue's `__connect.errors.exception.class.name` header carries for it, so that
tools reading Connect's DLQ headers see the names they know.
"""

from __future__ import annotations

from typing import ClassVar


class ConnectException(Exception):
    """Connect's ConnectException: a failure of a connector, task or the runtime around them."""

    java_class_name: ClassVar[str] = "org.apache.kafka.connect.errors.ConnectException"


class RetriableException(ConnectException):
    """Connect's RetriableException: a transient failure; the runtime retries the operation."""

    java_class_name: ClassVar[str] = "org.apache.kafka.connect.errors.RetriableException"
