"""Converters by class name: the built-ins under their Java names, or any `Converter` (or
`HeaderConverter`) subclass by entry point (group `pyconnect.converters`) or Python path, through the
one `load_class`."""

from __future__ import annotations

from collections.abc import Mapping

from pyconnect.api.config import Validator
from pyconnect.api.converter import Converter, Deserialize, HeaderConverter, SchemaSerialize, Serialize
from pyconnect.api.loading import class_validator, load_class
from pyconnect.converters.builtin import JAVA_NAMES

GROUP = "pyconnect.converters"
ALIASES: dict[str, type] = {**JAVA_NAMES, **{name.rsplit(".", 1)[-1]: cls for name, cls in JAVA_NAMES.items()}}

#: The ConfigDef validator of `key.converter` / `value.converter`.
converter_class: Validator = class_validator(Converter, ALIASES, GROUP)
#: The ConfigDef validator of `header.converter`: exactly the classes `header_converter_for` loads.
header_converter_class: Validator = class_validator(HeaderConverter, ALIASES, GROUP)


def _converter(class_name: str, configs: Mapping[str, str], is_key: bool) -> Converter:
    converter: Converter = load_class(class_name, Converter, ALIASES, GROUP)()
    converter.configure(configs, is_key)
    return converter


def converter_for(class_name: str, configs: Mapping[str, str], is_key: bool) -> Serialize:
    """The per-record function of the converter `class_name`, configured with `configs` (the
    `<side>.converter.` keys without their prefix). Raises ClassLoadError for an unknown class."""
    return _converter(class_name, configs, is_key).serializer()


def deserializer_for(class_name: str, configs: Mapping[str, str], is_key: bool) -> Deserialize:
    """The converter's `toConnectData` function (what a sink reads records with), configured as
    `converter_for` configures it. A converter that cannot read raises DataException here, at setup."""
    return _converter(class_name, configs, is_key).deserializer()


def schema_serializer_for(class_name: str, configs: Mapping[str, str], is_key: bool) -> SchemaSerialize:
    """The converter's `fromConnectData` function (topic, schema, value) -> bytes, configured as
    `converter_for` configures it."""
    return _converter(class_name, configs, is_key).schema_serializer()


def header_converter_for(class_name: str, configs: Mapping[str, str]) -> HeaderConverter:
    """The header converter `class_name` (SimpleHeaderConverter, StringConverter, ByteArrayConverter,
    JsonConverter by Java or simple name, or a HeaderConverter subclass by entry point or Python path),
    configured with the `header.converter.` keys without their prefix. Java configures a header
    converter with `converter.type=header` added; so does this."""
    converter: HeaderConverter = load_class(class_name, HeaderConverter, ALIASES, GROUP)()
    converter.configure({**configs, "converter.type": "header"})
    return converter


def side_settings(config: Mapping[str, str], side: str) -> dict[str, str]:
    """`<side>.converter.<key>` entries of a worker or connector config, without the prefix."""
    prefix = f"{side}.converter."
    return {k[len(prefix):]: str(v) for k, v in config.items() if k.startswith(prefix)}
