"""Rewrite the schema ids of copied records (schema replication; connectors.mirror.schema_mapper maps them).

A key or value in Confluent's wire format (a zero byte, a 4-byte big-endian schema id, the payload: at least
5 bytes) gets the target registry's id of the same schema, the payload after the id byte for byte; any other
key or value (None, shorter, not starting with a zero byte) passes untouched. Headers, timestamps,
partitions and order are not touched: the messages are the consumed ones, rewritten in place.

Invariants:
- A message is never handed on with a source id that could not be mapped: the id's failure follows the
  connector's errors.tolerance. `none` (the default): a ConnectException naming the topic, partition, offset
  and the registry's answer fails the task (its offsets are not committed past the previous run); `all`: the
  message is skipped and logged, which ends its run (its upstream offset is a gap, as a filtered record's:
  the offset syncs stay exact).
- An id equal to its target id leaves the bytes as they are (no copy).
- Heartbeats topics are never handed to the rewriter (source_task.py): their keys and values are MM2's own
  struct encoding, which can start with a zero byte (a heartbeat key of one-letter aliases reads as an id).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from connectors.mirror.schema_mapper import SchemaMapper
from pyconnect.api.errors import ConnectException
from pyconnect.kafka.schema_registry import RegistryError

log = logging.getLogger(__name__)
_ZERO = b"\x00"


def wire_id(data: bytes | None) -> int | None:
    """The schema id of a key or value in Confluent's wire format, else None."""
    if data is None or len(data) < 5 or data[0] != 0:
        return None
    return int.from_bytes(data[1:5], "big")


def with_id(data: bytes, schema_id: int) -> bytes:
    return _ZERO + schema_id.to_bytes(4, "big") + data[5:]


class SchemaRewriter:
    """Rewrites runs of one task's messages in place (see the module docstring)."""

    def __init__(self, mapper: SchemaMapper, tolerate_all: bool, log_messages: bool = False) -> None:
        self.mapper = mapper
        self.tolerate_all = tolerate_all
        self.log_messages = log_messages
        self.skipped = 0
        self.rewritten = 0
        # (topic, remote) -> {(is key, source id): target id}: the hot path's own cache
        self._ids: dict[tuple[str, str], dict[tuple[bool, int], int]] = {}

    def pieces(self, topic: str, remote: str, messages: Sequence[Any]) -> list[list[Any]]:
        """`messages` with their ids rewritten, cut into runs at every skipped one."""
        ids = self._ids.get((topic, remote))
        if ids is None:
            ids = self._ids[(topic, remote)] = {}
        out: list[list[Any]] = []
        current: list[Any] = []
        for m in messages:
            if self._rewrite(topic, remote, m, ids):
                current.append(m)
                continue
            if current:
                out.append(current)
                current = []
        if current:
            out.append(current)
        return out

    def _rewrite(self, topic: str, remote: str, m: Any, ids: dict[tuple[bool, int], int]) -> bool:
        """Rewrite one message's key and value; False when it is skipped (errors.tolerance=all)."""
        value, key = m.value(), m.key()
        value_id, key_id = wire_id(value), wire_id(key)
        if value_id is None and key_id is None:
            return True
        try:
            new_value = self._target(topic, remote, False, value_id, ids)
            new_key = self._target(topic, remote, True, key_id, ids)
        except RegistryError as e:
            return self._failed(topic, m, e)
        if new_value is not None and new_value != value_id:
            m.set_value(with_id(value, new_value))
            self.rewritten += 1
        if new_key is not None and new_key != key_id:
            m.set_key(with_id(key, new_key))
        return True

    def _target(self, topic: str, remote: str, is_key: bool, source_id: int | None,
                ids: dict[tuple[bool, int], int]) -> int | None:
        if source_id is None:
            return None
        target = ids.get((is_key, source_id))
        if target is None:
            target = ids[(is_key, source_id)] = self.mapper.target_id(topic, remote, source_id, is_key)
        return target

    def _failed(self, topic: str, m: Any, error: RegistryError) -> bool:
        where = f"{topic}-{m.partition()} offset {m.offset()}"
        reason = f"schema replication cannot map the schema id of the record at {where}: {error}"
        if not self.tolerate_all:
            raise ConnectException(f"{reason} (errors.tolerance=none: the task stops; no record is copied with "
                                   "its source schema id)")
        self.skipped += 1
        if self.log_messages:
            log.warning("%s; skipped (errors.tolerance=all), key=%r value=%r", reason, m.key(), m.value())
        else:
            log.warning("%s; skipped (errors.tolerance=all)", reason)
        return False


def rewriter_for(config: dict[str, str]) -> SchemaRewriter | None:
    """The task's rewriter when schema.replication.enabled (a ConfigException names a missing registry URL),
    else None, with a warning naming registry settings that the switch being off leaves unused."""
    from connectors.mirror.schema_config import SWITCH, registry_settings, unused_settings
    from pyconnect.kafka.schema_registry import Registry

    if str(config.get(SWITCH, "false")).strip().lower() != "true":
        unused = unused_settings(config)
        if unused:
            log.warning("%s %s set but %s is false: records are copied with their source schema ids",
                        ", ".join(unused), "is" if len(unused) == 1 else "are", SWITCH)
        return None
    source = Registry(registry_settings(config, "source"), "the source schema registry")
    target = Registry(registry_settings(config, "target"), "the target schema registry")
    tolerance = str(config.get("errors.tolerance", "none")).strip().lower()
    log_messages = str(config.get("errors.log.include.messages", "false")).strip().lower() == "true"
    return SchemaRewriter(SchemaMapper(source, target), tolerance == "all", log_messages)
