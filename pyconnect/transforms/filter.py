"""Filter: drops every record it is applied to; used with a predicate (Connect's Filter)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import ConfigDef
from pyconnect.transforms.record import ConnectRecord
from pyconnect.transforms.spi import Transformation


class Filter(Transformation):
    """Drops all records, filtering them from subsequent transformations in the chain. This is intended
    to be used conditionally to filter out records matching (or not matching) a particular predicate."""

    def config_def(self) -> ConfigDef:
        return ConfigDef()

    def configure(self, config: Mapping[str, Any]) -> None:
        pass

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        return None
