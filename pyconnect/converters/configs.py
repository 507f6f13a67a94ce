"""The settings of the built-in converters, as their Java ConfigDefs define them.

JsonConverterConfig and StringConverterConfig: a value that does not parse, or is not one of the
allowed values, fails `configure` with a ConfigException naming the key, as in Java.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import ConfigDef, ConfigException, ConfigKey, ConfigType, Importance, at_least, one_of


class ConverterConfigError(ConfigException, ValueError):
    """A converter setting that does not parse (a ValueError too, as the converters raised before)."""


_TYPE = ConfigKey("converter.type", ConfigType.STRING, None, Importance.LOW,
                  "How this converter will be used.", validator=one_of("key", "value", "header"))

JSON_CONFIG = ConfigDef([
    ConfigKey("schemas.enable", ConfigType.BOOLEAN, True, Importance.HIGH,
              "Include schemas within each of the serialized values and keys."),
    ConfigKey("schemas.cache.size", ConfigType.INT, 1000, Importance.HIGH,
              "The maximum number of schemas that can be cached in this converter instance.",
              validator=at_least(0)),
    ConfigKey("decimal.format", ConfigType.STRING, "BASE64", Importance.LOW,
              "Controls which format this converter will serialize decimals in (BASE64 or NUMERIC).",
              validator=one_of("BASE64", "NUMERIC")),
    ConfigKey("replace.null.with.default", ConfigType.BOOLEAN, True, Importance.LOW,
              "Whether to replace fields that have a default value and that are null to the default value."),
    ConfigKey("schema.content", ConfigType.STRING, None, Importance.MEDIUM,
              "When set, this is used as the schema for all messages, and the schemas within each of the message "
              "will be ignored. Otherwise, the schema will be included in the content of each message. This "
              "configuration applies only 'schemas.enable' is true, and it exclusively affects the sink connector "
              "(reading records); with 'schemas.enable' false it is refused, since it would have no effect."),
    _TYPE,
])

#: Connect's ConverterConfig: what the boolean and number converters accept.
CONVERTER_CONFIG = ConfigDef([_TYPE])

STRING_CONFIG = ConfigDef([
    ConfigKey("converter.encoding", ConfigType.STRING, "UTF-8", Importance.HIGH,
              "The name of the Java character set to use for encoding strings as byte arrays."),
    _TYPE,
])


def parse(config_def: ConfigDef, configs: Mapping[str, Any]) -> dict[str, Any]:
    """The typed settings; ConverterConfigError naming each bad key."""
    try:
        return config_def.parse(configs)
    except ConfigException as exc:
        raise ConverterConfigError(str(exc), exc.errors) from None
