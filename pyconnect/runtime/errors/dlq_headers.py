"""The error-context headers a dead letter queue record carries (DeadLetterQueueReporter's
`__connect.errors.*`), with Java's names and encodings: every value a UTF-8 string, the partition,
offset and task number as decimal text.

Exception class names: a Python exception is written under its fully qualified Python name
(`builtins.ValueError`, `mypkg.errors.MyError`), except the exceptions that stand for Connect's own
(ConnectException, RetriableException, DataException), which are written under their Java name
(`org.apache.kafka.connect.errors.DataException`): consumers of Connect's DLQs route on these names.
Only the class itself carries its Java name; a subclass is written under its own Python name.
"""

from __future__ import annotations

import traceback

from pyconnect.api.data import DataException
from pyconnect.api.records import Header
from pyconnect.api.task_id import TaskId
from pyconnect.runtime.errors.context import ProcessingContext, class_name

PREFIX = "__connect.errors."
ORIG_TOPIC = PREFIX + "topic"
ORIG_PARTITION = PREFIX + "partition"
ORIG_OFFSET = PREFIX + "offset"
CONNECTOR_NAME = PREFIX + "connector.name"
TASK_ID = PREFIX + "task.id"
STAGE = PREFIX + "stage"
EXECUTING_CLASS = PREFIX + "class.name"
EXCEPTION = PREFIX + "exception.class.name"
EXCEPTION_MESSAGE = PREFIX + "exception.message"
EXCEPTION_STACK_TRACE = PREFIX + "exception.stacktrace"

# Exceptions of the plugin SPI that stand for Connect's, where the class cannot say so itself.
_JAVA_NAMES: dict[type[BaseException], str] = {DataException: "org.apache.kafka.connect.errors.DataException"}


def exception_class_name(error: BaseException) -> str:
    """The name written for `error`'s class (see the module docstring)."""
    cls = type(error)
    java = cls.__dict__.get("java_class_name") or _JAVA_NAMES.get(cls)
    return java if isinstance(java, str) else class_name(cls)


def exception_message(error: BaseException) -> str | None:
    """Java's getMessage: None for an exception made without a message."""
    text = str(error)
    return None if not text and not error.args else text


def stacktrace(error: BaseException) -> str:
    """As Java's printStackTrace begins: `<class name>: <message>` (the name alone without a message),
    then Python's traceback of the error and its causes."""
    message = exception_message(error)
    head = exception_class_name(error) + (f": {message}" if message is not None else "")
    return head + "\n" + "".join(traceback.format_exception(error))


def _utf8(text: str | None) -> bytes | None:
    return None if text is None else text.encode("utf-8")


def context_headers(context: ProcessingContext, task_id: TaskId) -> list[Header]:
    """DeadLetterQueueReporter.populateContextHeaders: the original position (when the context has a
    consumed record), the task, the stage and class, and the error (when there is one)."""
    headers: list[Header] = []
    consumed = context.consumed
    if consumed is not None:
        headers += [(ORIG_TOPIC, _utf8(consumed.topic)), (ORIG_PARTITION, _utf8(str(consumed.partition))),
                    (ORIG_OFFSET, _utf8(str(consumed.offset)))]
    stage = context.stage.value if context.stage is not None else "null"
    headers += [(CONNECTOR_NAME, _utf8(task_id.connector)), (TASK_ID, _utf8(str(task_id.task))),
                (STAGE, _utf8(stage)), (EXECUTING_CLASS, _utf8(class_name(context.executing_class)))]
    error = context.error
    if error is not None:
        headers += [(EXCEPTION, _utf8(exception_class_name(error))),
                    (EXCEPTION_MESSAGE, _utf8(exception_message(error))),
                    (EXCEPTION_STACK_TRACE, _utf8(stacktrace(error)))]
    return headers
