"""Converters by class name: the built-ins under their Java names, or any `Converter` subclass by
entry point (group `pyconnect.converters`) or Python path, through the one `load_class`."""

from __future__ import annotations

from collections.abc import Mapping

from pyconnect.api.config import Validator
from pyconnect.api.converter import Converter, Serialize
from pyconnect.api.loading import class_validator, load_class
from pyconnect.converters.builtin import JAVA_NAMES

GROUP = "pyconnect.converters"
ALIASES: dict[str, type] = {**JAVA_NAMES, **{name.rsplit(".", 1)[-1]: cls for name, cls in JAVA_NAMES.items()}}

#: The ConfigDef validator of `key.converter` / `value.converter`.
converter_class: Validator = class_validator(Converter, ALIASES, GROUP)


def converter_for(class_name: str, configs: Mapping[str, str], is_key: bool) -> Serialize:
    """The per-record function of the converter `class_name`, configured with `configs` (the
    `<side>.converter.` keys without their prefix). Raises ClassLoadError for an unknown class."""
    converter: Converter = load_class(class_name, Converter, ALIASES, GROUP)()
    converter.configure(configs, is_key)
    return converter.serializer()


def side_settings(config: Mapping[str, str], side: str) -> dict[str, str]:
    """`<side>.converter.<key>` entries of a worker or connector config, without the prefix."""
    prefix = f"{side}.converter."
    return {k[len(prefix):]: str(v) for k, v in config.items() if k.startswith(prefix)}
