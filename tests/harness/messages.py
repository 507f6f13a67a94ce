"""A stand-in for the client's consumed or delivered message, for unit tests of code that reads one."""

from __future__ import annotations


class FakeMessage:
    """What the code under test reads of a confluent-kafka message: topic, partition, offset, value."""

    __slots__ = ("_topic", "_partition", "_offset", "_value")

    def __init__(self, topic: str, partition: int, offset: int, value: bytes = b"") -> None:
        self._topic, self._partition, self._offset, self._value = topic, partition, offset, value

    def topic(self) -> str:
        return self._topic

    def partition(self) -> int:
        return self._partition

    def offset(self) -> int:
        return self._offset

    def value(self) -> bytes:
        return self._value


def at(offset: int) -> FakeMessage:
    """A message of topic `t`, partition 0, at `offset`."""
    return FakeMessage("t", 0, offset)
