"""MaskField: replaces fields with their type's empty value or a given replacement (Connect's
MaskField$Key / MaskField$Value)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from pyconnect.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from pyconnect.api.data import EPOCH, DataException, Struct
from pyconnect.transforms.record import ConnectRecord
from pyconnect.transforms.requirements import require_map, require_struct
from pyconnect.transforms.simple_config import (
    REPLACE_NULL_WITH_DEFAULT,
    non_empty_list,
    non_empty_string,
    simple_config,
)
from pyconnect.transforms.spi import KeyOrValue, OnKey, OnValue, Transformation

PURPOSE = "mask fields"

# Checked in order: bool before int (a bool is an int), datetime before date (a datetime is a date).
_EMPTY: tuple[tuple[type, Callable[[], Any]], ...] = (
    (bool, lambda: False), (int, lambda: 0), (float, lambda: 0.0), (str, lambda: ""),
    (Decimal, lambda: Decimal(0)), (dt.datetime, lambda: EPOCH), (dt.date, lambda: EPOCH.date()),
    (dt.time, lambda: dt.time(0)), (list, list), (dict, dict),
)
_REPLACEMENT: tuple[tuple[type, Callable[[str], Any]], ...] = (
    (bool, lambda r: _unsupported()), (int, int), (float, float), (str, str), (Decimal, Decimal),
)


def _unsupported() -> Any:
    raise TypeError


def empty_value(value: Any) -> Any:
    """The value's type's empty value: 0, false, "", epoch, an empty list or map."""
    if value is None:
        return None
    for cls, make in _EMPTY:
        if isinstance(value, cls):
            return make()
    raise DataException(f"Cannot mask value of type: {type(value).__name__}")


def replaced(value: Any, replacement: str) -> Any:
    """`replacement` read as the value's type (numbers and strings only)."""
    for cls, convert in _REPLACEMENT:
        if isinstance(value, cls):
            try:
                return convert(replacement)
            except (ValueError, InvalidOperation):
                raise DataException(f"Unable to convert {replacement} (str) to number") from None
            except TypeError:
                break
    raise DataException(f"Cannot mask value of type {type(value).__name__} with custom replacement.")


class MaskField(Transformation, KeyOrValue):
    """Shared logic; use MaskField$Key or MaskField$Value."""

    CONFIG_DEF = ConfigDef([
        ConfigKey("fields", ConfigType.LIST, importance=Importance.HIGH, validator=non_empty_list,
                  documentation="Names of fields to mask."),
        ConfigKey("replacement", ConfigType.STRING, None, Importance.LOW, validator=non_empty_string,
                  documentation="Custom value replacement, that will be applied to all 'fields' values "
                  "(numeric or non-empty string values only)."),
        REPLACE_NULL_WITH_DEFAULT,
    ])

    def __init__(self) -> None:
        self._fields: set[str] = set()
        self._replacement: str | None = None
        self._replace_null = True

    def config_def(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, config: Mapping[str, Any]) -> None:
        values = simple_config(self.CONFIG_DEF, config)
        self._fields = set(values["fields"])
        self._replacement = values["replacement"]
        self._replace_null = values["replace.null.with.default"]

    def masked(self, value: Any) -> Any:
        if value is None:
            return None
        return empty_value(value) if self._replacement is None else replaced(value, self._replacement)

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        value = self.operating_value(record)
        if value is None:
            return record
        schema = self.operating_schema(record)
        if schema is None:
            original = require_map(value, PURPOSE)
            updated_map = dict(original)
            for name in self._fields:
                updated_map[name] = self.masked(original.get(name))
            return self.updated(record, None, updated_map)
        struct = require_struct(value, PURPOSE)
        updated = Struct(struct.schema)
        for f in struct.schema.fields:
            field_value = struct.get(f) if self._replace_null else struct.get_without_default(f)
            updated.put(f, self.masked(field_value) if f.name in self._fields else field_value)
        return self.updated(record, schema, updated)


class MaskFieldKey(OnKey, MaskField):
    """MaskField on the record key (Connect's MaskField$Key)."""


class MaskFieldValue(OnValue, MaskField):
    """MaskField on the record value (Connect's MaskField$Value)."""
