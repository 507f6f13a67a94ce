"""Source offsets (Connect's offsets topic).

Key: JSON `[connector, {partition}]`; value: JSON offset map or a tombstone (compat-spec §B.3).
Keys are looked up by content, not by byte order, so offsets written by Java workers (whose map
order is HashMap order) are found too. Values are read as Connect's offset reader reads them: a value
that is not a JSON object of primitives is no offset at all (it replaces the previous one), and a JSON
`null` is a partition whose offset is null.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from concurrent.futures import Future
from typing import Any

import orjson

from pyconnect.storage.log import Log, LogBackedStore

log = logging.getLogger(__name__)


def canonical(partition: Mapping[str, Any]) -> str:
    """A stable text form of a source partition (sorted keys) used as an index."""
    return orjson.dumps(dict(partition), option=orjson.OPT_SORT_KEYS).decode()


def offset_record(connector: str, partition: Mapping[str, Any], offset: Mapping[str, Any] | None
                  ) -> tuple[bytes, bytes | None]:
    """The (key, value) bytes of one offset as Connect writes it (None: a tombstone)."""
    return orjson.dumps([connector, dict(partition)]), None if offset is None else orjson.dumps(dict(offset))


class OffsetStore(LogBackedStore):
    """Committed source offsets of every connector."""

    def __init__(self, log_: Log) -> None:
        super().__init__(log_)
        # connector -> canonical partition -> (partition map, offset map or None for a JSON null)
        self._offsets: dict[str, dict[str, tuple[dict[str, Any], dict[str, Any] | None]]] = {}

    def get(self, connector: str, partition: Mapping[str, Any]) -> dict[str, Any] | None:
        """The partition's committed offset; None if there is none (or it is null)."""
        with self._lock:
            found = self._offsets.get(connector, {}).get(canonical(partition))
            return dict(found[1]) if found and found[1] is not None else None

    def connector_offsets(self, connector: str) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
        """Every partition of the connector with its offset (None for a JSON null), as GET offsets lists them."""
        with self._lock:
            return [(dict(p), None if o is None else dict(o)) for p, o in self._offsets.get(connector, {}).values()]

    def connectors(self) -> list[str]:
        """Names of the connectors that have at least one offset (a JSON null counts)."""
        with self._lock:
            return sorted(name for name, partitions in self._offsets.items() if partitions)

    def put(self, connector: str, offsets: Iterable[tuple[Mapping[str, Any], Mapping[str, Any] | None]]
            ) -> list[Future[None]]:
        """Write offsets (None = tombstone); returns one future per record."""
        return [self._log.send(*offset_record(connector, partition, offset)) for partition, offset in offsets]

    def _on_record(self, raw_key: bytes | None, raw_value: bytes | None, _p: int, _o: int) -> None:
        key = _partition_key(raw_key)
        if key is None:
            return
        connector, partition = key
        usable, offset = _offset_value(raw_value) if raw_value is not None else (False, None)
        with self._lock:
            per_connector = self._offsets.setdefault(connector, {})
            if usable:
                per_connector[canonical(partition)] = (partition, offset)
            else:  # a tombstone, or a value Connect's reader cannot use: no offset any more
                per_connector.pop(canonical(partition), None)


def _partition_key(raw: bytes | None) -> tuple[str, dict[str, Any]] | None:
    """(connector, partition) from a key, or None for keys Connect's OffsetUtils ignores."""
    try:
        key = orjson.loads(raw) if raw else None
    except orjson.JSONDecodeError:
        key = None
    if isinstance(key, list) and len(key) == 2 and isinstance(key[0], str) and isinstance(key[1], dict):
        return key[0], key[1]
    if not (isinstance(key, list) and len(key) == 2 and key[1] is None):  # a null partition is silently skipped
        log.warning("ignoring offsets record with a malformed key %r", raw)
    return None


def _offset_value(raw: bytes) -> tuple[bool, dict[str, Any] | None]:
    """(usable, offset map or None for a JSON null); unusable where OffsetUtils.validateFormat would fail."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        log.warning("offsets record with a value that is not JSON: no offset for its partition")
        return False, None
    if value is None:
        return True, None
    if not isinstance(value, dict) or any(isinstance(v, (dict, list)) for v in value.values()):
        log.warning("offsets record whose value is not a map of primitives: no offset for its partition")
        return False, None
    return True, value
