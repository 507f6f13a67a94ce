"""ExtractField: replaces the key or value with one of its fields (Connect's ExtractField$Key /
ExtractField$Value)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from pyconnect.transforms.field_path import SYNTAX_VERSION_CONFIG, SYNTAX_VERSION_KEY, SingleFieldPath
from pyconnect.transforms.record import ConnectRecord
from pyconnect.transforms.requirements import require_map_or_null, require_struct_or_null
from pyconnect.transforms.simple_config import REPLACE_NULL_WITH_DEFAULT, simple_config
from pyconnect.transforms.spi import KeyOrValue, OnKey, OnValue, Transformation

PURPOSE = "field extraction"


class ExtractField(Transformation, KeyOrValue):
    """Shared logic; use ExtractField$Key or ExtractField$Value."""

    CONFIG_DEF = ConfigDef([
        ConfigKey("field", ConfigType.STRING, importance=Importance.MEDIUM,
                  documentation="Field name to extract."),
        SYNTAX_VERSION_CONFIG,
        REPLACE_NULL_WITH_DEFAULT,
    ])

    def __init__(self) -> None:
        self._path = SingleFieldPath("")
        self._replace_null = True

    def config_def(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, config: Mapping[str, Any]) -> None:
        values = simple_config(self.CONFIG_DEF, config)
        self._path = SingleFieldPath(values["field"], values[SYNTAX_VERSION_KEY])
        self._replace_null = values["replace.null.with.default"]

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema = self.operating_schema(record)
        if schema is None:
            value = require_map_or_null(self.operating_value(record), PURPOSE)
            return self.updated(record, None, None if value is None else self._path.value_from_map(value))
        struct = require_struct_or_null(self.operating_value(record), PURPOSE)
        found = self._path.field_from(schema)
        if found is None:
            # Connect throws IllegalArgumentException here; ValueError is its Python counterpart.
            raise ValueError(f"Unknown field: {self._path}")
        extracted = None if struct is None else self._path.value_from_struct(struct, self._replace_null)
        return self.updated(record, found.schema, extracted)


class ExtractFieldKey(OnKey, ExtractField):
    """ExtractField on the record key (Connect's ExtractField$Key)."""


class ExtractFieldValue(OnValue, ExtractField):
    """ExtractField on the record value (Connect's ExtractField$Value)."""
