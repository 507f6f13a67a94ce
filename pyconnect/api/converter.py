"""The converter SPI: Connect's `Converter`, which turns a record's key or value into the bytes written.

A converter is named by class in `key.converter` / `value.converter` (worker or connector config);
the runtime resolves the name with `load_class` (Java name, entry point of group
`pyconnect.converters`, or Python path), calls `configure` with the `<side>.converter.`-prefixed keys
stripped of the prefix, and then calls the function `serializer()` returns once per record.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any

#: One record's key or value to the bytes written (None for a null key or a tombstone).
Serialize = Callable[[Any], bytes | None]


class Converter(ABC):
    """Connect's org.apache.kafka.connect.storage.Converter, for the direction a source task needs."""

    def configure(self, configs: Mapping[str, str], is_key: bool) -> None:
        """Settings given as `<side>.converter.<key>` (e.g. `schemas.enable`); `is_key` says which side."""
        return None

    @abstractmethod
    def serializer(self) -> Serialize:
        """The function the runtime calls per record. A plain function rather than a method call, so
        the per-record path allocates nothing (the byte-array pass-through is recognised by identity)."""
