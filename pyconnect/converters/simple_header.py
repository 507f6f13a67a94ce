"""org.apache.kafka.connect.storage.SimpleHeaderConverter: header values as Connect's `Values` text."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from pyconnect.api.converter import NULL_SCHEMA_AND_VALUE, HeaderConverter, SchemaAndValue
from pyconnect.api.data import BYTES_SCHEMA, STRING_SCHEMA, DataException, Schema
from pyconnect.api.values_parse import parse_string
from pyconnect.converters.values_text import convert_to_string

log = logging.getLogger(__name__)


class SimpleHeaderConverter(HeaderConverter):
    """Writes `Values.convertToString` as UTF-8; reads with `Values.parseString`, the narrowest type
    the text allows. Text it cannot parse reads as BYTES, as in Java; so do bytes that are not UTF-8,
    which Java would decode with replacement characters, losing them."""

    def configure(self, configs: Mapping[str, str]) -> None:
        return None

    def to_bytes(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        text = convert_to_string(schema, value)
        return None if text is None else text.encode("utf-8")

    def to_connect(self, topic: str, header_key: str, data: bytes | None) -> SchemaAndValue:
        if data is None:
            return NULL_SCHEMA_AND_VALUE
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            log.warning("Failed to deserialize value for header '%s' on topic '%s', so using byte array",
                        header_key, topic)
            return SchemaAndValue(BYTES_SCHEMA, data)
        if not text:
            return SchemaAndValue(STRING_SCHEMA, text)
        try:
            return parse_string(text)
        except (DataException, ValueError, RecursionError):
            log.warning("Failed to deserialize value for header '%s' on topic '%s', so using byte array",
                        header_key, topic)
            return SchemaAndValue(BYTES_SCHEMA, data)
