"""Finds and tails the offset syncs of the flows into a checkpoint flow's source (origin_translation).

Flow A->B's checkpoint task reads, besides its own syncs:
- with `offset-syncs.topic.location = target` (every flow's syncs on its target): on A, each
  `mm2-offset-syncs.<X>.internal` holds flow X->A's syncs; its onward syncs X->B are
  `mm2-offset-syncs.<X>.internal` on B (origin B needs none: B holds its own records). Every route of a mesh
  is reachable from A and B, so this is the setting for active/active among three or more clusters.
- with the default `source` location: only flow B->A's syncs are on a cluster this flow reaches (on B, as
  `mm2-offset-syncs.<A>.internal`), so only origin B is covered, and other origins are logged as not covered.
Both rules assume every flow between these clusters uses the same location, as one mm2.properties gives them.
Routes are looked for again every `REFRESH_S` seconds, so a flow started later joins.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Mapping

from connectors.mirror.config import MirrorConfig
from connectors.mirror.formats import OffsetSync
from connectors.mirror.offset_sync_store import OffsetSyncStore
from connectors.mirror.origin_translation import OriginRoute
from pyconnect.kafka.topic_log import KafkaLog

log = logging.getLogger(__name__)

REFRESH_S = 10.0


class OriginRoutes:
    """The routes of one checkpoint flow, by origin alias; `stop()` ends the readers."""

    def __init__(self, cfg: MirrorConfig) -> None:
        self.cfg = cfg
        sep = re.escape(cfg.policy().internal_separator)
        self._pattern = re.compile(rf"mm2-offset-syncs{sep}(.+){sep}internal")
        self._routes: dict[str, OriginRoute] = {}
        self._readers: list[KafkaLog] = []
        self._next = 0.0
        self._warned = False

    def __call__(self) -> Mapping[str, OriginRoute]:
        """The current routes, refreshed when due (called on the task's thread)."""
        if time.monotonic() >= self._next:
            self._next = time.monotonic() + REFRESH_S
            try:
                self._refresh()
            except Exception as exc:  # keep the routes known so far; the next refresh retries
                log.warning("cannot look for the offset syncs of flows into %s: %s", self.cfg.source, exc)
        return self._routes

    def _aliases(self, side: str) -> set[str]:
        names = self.cfg.admin(side).topic_partitions()
        return {m.group(1) for m in map(self._pattern.fullmatch, names) if m}

    def _refresh(self) -> None:
        source, target = self.cfg.source, self.cfg.target
        if self.cfg.offset_syncs_side() == "target":
            on_target = self._aliases("target")
            for origin in sorted(self._aliases("source") - {source} - set(self._routes)):
                if origin == target or origin in on_target:
                    self._add(origin, "source", origin, None if origin == target else origin)
        elif target not in self._routes and source in self._aliases("target"):
            self._add(target, "target", source, None)
            if not self._warned:
                self._warned = True
                log.info("fail-over translation of %s->%s covers records of %s and %s; records that other "
                         "clusters' flows brought to %s need offset-syncs.topic.location = target",
                         source, target, source, target, source)

    def _add(self, origin: str, inbound_side: str, inbound_alias: str, onward_alias: str | None) -> None:
        inbound = self._tail(inbound_side, inbound_alias)
        onward = None if onward_alias is None else self._tail("target", onward_alias)
        self._routes[origin] = OriginRoute(origin, inbound, onward)
        log.info("fail-over translation of %s->%s follows records of origin %s", self.cfg.source,
                 self.cfg.target, origin)

    def _tail(self, side: str, alias: str) -> OffsetSyncStore:
        """A store fed by `mm2-offset-syncs.<alias>.internal` on `side`, started once read to its end."""
        store = OffsetSyncStore()
        reader = KafkaLog(self.cfg.policy().offset_syncs_topic(alias), 1, self.cfg.client(side, "producer"),
                          self.cfg.client(side, "consumer"))
        reader.start_with_headers(lambda key, value, headers: store.add(OffsetSync.decode(key, value, headers))
                                  if key and value else None, timeout=float(self.cfg["admin.timeout.ms"]) / 1000)
        store.start()
        self._readers.append(reader)
        return store

    def stop(self) -> None:
        for reader in self._readers:
            reader.stop()
