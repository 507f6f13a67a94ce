"""HeaderFrom: copies or moves fields of the key or value into headers (Connect's HeaderFrom$Key /
HeaderFrom$Value)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import ConfigDef, ConfigException, ConfigKey, ConfigType, Importance
from pyconnect.api.data import DataException, Schema, Struct, copy_schema_basics
from pyconnect.transforms.record import ConnectRecord, Headers
from pyconnect.transforms.requirements import require_map, require_struct
from pyconnect.transforms.simple_config import REPLACE_NULL_WITH_DEFAULT, non_empty_list, one_of_lower, simple_config
from pyconnect.transforms.spi import KeyOrValue, OnKey, OnValue, Transformation

PURPOSE = "header from"


class HeaderFrom(Transformation, KeyOrValue):
    """Shared logic; use HeaderFrom$Key or HeaderFrom$Value."""

    CONFIG_DEF = ConfigDef([
        ConfigKey("fields", ConfigType.LIST, importance=Importance.HIGH, validator=non_empty_list,
                  documentation="Field names in the record whose values are to be copied or moved to headers."),
        ConfigKey("headers", ConfigType.LIST, importance=Importance.HIGH, validator=non_empty_list,
                  documentation="Header names, in the same order as the field names listed in the fields "
                  "configuration property."),
        ConfigKey("operation", ConfigType.STRING, importance=Importance.HIGH, validator=one_of_lower("move", "copy"),
                  documentation="Either <code>move</code> if the fields are to be moved to the headers (removed "
                  "from the key/value), or <code>copy</code> if the fields are to be copied to the headers "
                  "(retained in the key/value)."),
        REPLACE_NULL_WITH_DEFAULT,
    ])

    def __init__(self) -> None:
        self._pairs: list[tuple[str, str]] = []
        self._move = False
        self._replace_null = True
        self._schema_cache: dict[Schema, Schema] = {}

    def config_def(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, config: Mapping[str, Any]) -> None:
        values = simple_config(self.CONFIG_DEF, config)
        fields, headers = values["fields"], values["headers"]
        if len(fields) != len(headers):
            raise ConfigException("'fields' config must have the same number of elements as 'headers' config.")
        self._pairs = list(zip(fields, headers, strict=True))
        self._move = values["operation"] == "move"
        self._replace_null = values["replace.null.with.default"]
        self._schema_cache = {}

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        headers = record.headers.duplicate()
        if self.operating_schema(record) is None:
            value = require_map(self.operating_value(record), PURPOSE)
            for field_name, header in self._pairs:
                headers.add(header, value.get(field_name))
            kept = {k: v for k, v in value.items() if not self._moves(k)}
            return self.updated(record.new_record(headers=headers), None, kept)
        return self._apply_with_schema(record, headers)

    def _moves(self, name: str) -> bool:
        return self._move and any(name == f for f, _ in self._pairs)

    def _apply_with_schema(self, record: ConnectRecord, headers: Headers) -> ConnectRecord:
        struct = require_struct(self.operating_value(record), PURPOSE)
        for field_name, header in self._pairs:
            found = struct.schema.field(field_name)
            if found is None:
                raise DataException(f"Field does not exist: {field_name}")
            value = struct.get(found) if self._replace_null else struct.get_without_default(found)
            headers.add(header, value, found.schema)
        with_headers = record.new_record(headers=headers)
        if not self._move:
            return self.updated(with_headers, struct.schema, struct)
        schema = self._schema_cache.get(struct.schema)
        if schema is None:
            builder = copy_schema_basics(struct.schema)
            for f in struct.schema.fields:
                if not self._moves(f.name):
                    builder.field(f.name, f.schema)
            schema = self._schema_cache[struct.schema] = builder.build()
        kept = Struct(schema)
        for f in schema.fields:
            kept.put(f.name, struct.get_without_default(f.name))
        return self.updated(with_headers, schema, kept)


class HeaderFromKey(OnKey, HeaderFrom):
    """HeaderFrom on the record key (Connect's HeaderFrom$Key)."""


class HeaderFromValue(OnValue, HeaderFrom):
    """HeaderFrom on the record value (Connect's HeaderFrom$Value)."""
