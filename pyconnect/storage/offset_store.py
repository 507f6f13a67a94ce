"""Source offsets (Connect's offsets topic).

Key: JSON `[connector, {partition}]`; value: JSON offset map or a tombstone (compat-spec §B.3).
Keys are looked up by content, not by byte order, so offsets written by Java workers (whose map
order is HashMap order) are found too.
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


class OffsetStore(LogBackedStore):
    """Committed source offsets of every connector."""

    def __init__(self, log_: Log) -> None:
        super().__init__(log_)
        # connector -> canonical partition -> (partition map, offset map)
        self._offsets: dict[str, dict[str, tuple[dict[str, Any], dict[str, Any]]]] = {}

    def get(self, connector: str, partition: Mapping[str, Any]) -> dict[str, Any] | None:
        with self._lock:
            found = self._offsets.get(connector, {}).get(canonical(partition))
            return dict(found[1]) if found else None

    def connector_offsets(self, connector: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        with self._lock:
            return [(dict(p), dict(o)) for p, o in self._offsets.get(connector, {}).values()]

    def put(self, connector: str, offsets: Iterable[tuple[Mapping[str, Any], Mapping[str, Any] | None]]
            ) -> list[Future[None]]:
        """Write offsets (None = tombstone); returns one future per record."""
        futures = []
        for partition, offset in offsets:
            key = orjson.dumps([connector, dict(partition)])
            value = None if offset is None else orjson.dumps(dict(offset))
            futures.append(self._log.send(key, value))
        return futures

    def _on_record(self, raw_key: bytes | None, raw_value: bytes | None, _p: int, _o: int) -> None:
        try:
            key = orjson.loads(raw_key) if raw_key else None
        except orjson.JSONDecodeError:
            key = None
        if not (isinstance(key, list) and len(key) == 2 and isinstance(key[0], str)
                and isinstance(key[1], dict)):
            log.warning("ignoring offsets record with a malformed key %r", raw_key)
            return
        connector, partition = key
        with self._lock:
            per_connector = self._offsets.setdefault(connector, {})
            if raw_value is None:
                per_connector.pop(canonical(partition), None)
                return
            try:
                offset = orjson.loads(raw_value)
            except orjson.JSONDecodeError:
                log.warning("ignoring offsets record with a malformed value for %s", connector)
                return
            if isinstance(offset, dict):
                per_connector[canonical(partition)] = (partition, offset)
