"""The record that transforms and sink tasks see (Connect's ConnectRecord) and its headers (Connect's Headers)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from pyconnect.api.data import STRING_SCHEMA, Schema


@dataclass(frozen=True)
class Header:
    """One header: a key, and a value with its (optional) schema."""

    key: str
    value: Any
    schema: Schema | None = None


class Headers:
    """Ordered headers, duplicates allowed (Connect's ConnectHeaders). Mutable like Connect's: a
    transform that changes them works on `duplicate()`, so the input record stays as it was."""

    def __init__(self, headers: Iterable[Header] = ()) -> None:
        self._items: list[Header] = list(headers)

    def add(self, key: str, value: Any, schema: Schema | None = None) -> Headers:
        self._items.append(Header(key, value, schema))
        return self

    def add_header(self, header: Header) -> Headers:
        self._items.append(header)
        return self

    def add_string(self, key: str, value: str | None) -> Headers:
        return self.add(key, value, STRING_SCHEMA)

    def remove(self, key: str) -> Headers:
        """Drop every header called `key`."""
        self._items = [h for h in self._items if h.key != key]
        return self

    def all_with_name(self, key: str) -> list[Header]:
        return [h for h in self._items if h.key == key]

    def last_with_name(self, key: str) -> Header | None:
        found = self.all_with_name(key)
        return found[-1] if found else None

    def duplicate(self) -> Headers:
        return Headers(self._items)

    def __iter__(self) -> Iterator[Header]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Headers) and self._items == other._items

    def __hash__(self) -> int:
        return hash(tuple(h.key for h in self._items))

    def __repr__(self) -> str:
        return f"Headers({self._items!r})"


@dataclass(frozen=True)
class ConnectRecord:
    """A record as the transforms see it: Connect's ConnectRecord fields, immutable.

    `kafka_offset` is only set on records read from Kafka (sink records; InsertField's `offset.field`).
    """

    topic: str | None
    kafka_partition: int | None = None
    key_schema: Schema | None = None
    key: Any = None
    value_schema: Schema | None = None
    value: Any = None
    timestamp: int | None = None
    headers: Headers = field(default_factory=Headers)
    kafka_offset: int | None = None

    def new_record(self, **changes: Any) -> ConnectRecord:
        """A copy with `changes` applied (Connect's `newRecord`); the headers are duplicated unless given,
        so a transform may change the copy's headers without touching this record's."""
        if "headers" not in changes:
            changes["headers"] = self.headers.duplicate()
        return replace(self, **changes)
