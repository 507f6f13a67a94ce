"""Where in a task's pipeline an operation failed (Connect's Stage), and how failures are tolerated
(Connect's ToleranceType)."""

from __future__ import annotations

from enum import StrEnum


class Stage(StrEnum):
    """Connect's Stage: the step of the pipeline an operation belongs to. The value is Java's
    `Stage.name()`, written to the log and the DLQ's `__connect.errors.stage` header."""

    TASK_PUT = "TASK_PUT"
    TASK_POLL = "TASK_POLL"
    VALUE_CONVERTER = "VALUE_CONVERTER"
    KEY_CONVERTER = "KEY_CONVERTER"
    HEADER_CONVERTER = "HEADER_CONVERTER"
    TRANSFORMATION = "TRANSFORMATION"
    KAFKA_PRODUCE = "KAFKA_PRODUCE"
    KAFKA_CONSUME = "KAFKA_CONSUME"


# Connect's RetryWithToleranceOperator.TOLERABLE_EXCEPTIONS: in these stages any exception may be
# tolerated; in the others only a RetriableException (anything else fails the task whatever the
# tolerance).
TOLERATE_ANY_EXCEPTION = frozenset({Stage.TRANSFORMATION, Stage.HEADER_CONVERTER, Stage.KEY_CONVERTER,
                                    Stage.VALUE_CONVERTER})


class ToleranceType(StrEnum):
    """Connect's ToleranceType; the value is what `errors.tolerance` takes."""

    NONE = "none"
    ALL = "all"

    @classmethod
    def parse(cls, text: str) -> ToleranceType:
        """The type `text` names, case-insensitively (ConnectorConfig.errorToleranceType); ValueError else."""
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise ValueError(f"Unknown tolerance type: {text}") from None
