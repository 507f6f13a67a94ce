"""Topic routers: RegexRouter and TimestampRouter (Connect's transforms of the same names)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from pyconnect.api.data import DataException, timestamp_from_millis
from pyconnect.transforms.java_text import SimpleDateFormat, java_replacement
from pyconnect.transforms.record import ConnectRecord
from pyconnect.transforms.simple_config import regex, simple_config
from pyconnect.transforms.spi import Transformation


class RegexRouter(Transformation):
    """Renames the topic when the whole topic name matches `regex`, with Java replacement syntax."""

    CONFIG_DEF = ConfigDef([
        ConfigKey("regex", ConfigType.STRING, importance=Importance.HIGH, validator=regex,
                  documentation="Regular expression to use for matching."),
        ConfigKey("replacement", ConfigType.STRING, importance=Importance.HIGH,
                  documentation="Replacement string."),
    ])

    def __init__(self) -> None:
        self._pattern = re.compile("")
        self._template = ""

    def config_def(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, config: Mapping[str, Any]) -> None:
        values = simple_config(self.CONFIG_DEF, config)
        self._pattern = re.compile(values["regex"])
        self._template = java_replacement(values["replacement"])

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        topic = record.topic
        if topic is None or self._pattern.fullmatch(topic) is None:
            return record
        return record.new_record(topic=self._pattern.sub(self._template, topic, count=1))


def _date_pattern(_name: str, value: Any) -> str | None:
    try:
        SimpleDateFormat(str(value))
    except ValueError as exc:
        return f"Invalid timestamp format: {exc}"
    return None


class TimestampRouter(Transformation):
    """Routes a record to `topic.format` with `${topic}` and `${timestamp}` (the record timestamp,
    formatted in UTC with the SimpleDateFormat pattern `timestamp.format`)."""

    CONFIG_DEF = ConfigDef([
        ConfigKey("topic.format", ConfigType.STRING, "${topic}-${timestamp}", Importance.HIGH,
                  "Format string which can contain <code>${topic}</code> and <code>${timestamp}</code> as "
                  "placeholders for the topic and timestamp, respectively."),
        ConfigKey("timestamp.format", ConfigType.STRING, "yyyyMMdd", Importance.HIGH,
                  "Format string for the timestamp that is compatible with <code>java.text.SimpleDateFormat</code>.",
                  validator=_date_pattern),
    ])

    def __init__(self) -> None:
        self._topic_format = "${topic}-${timestamp}"
        self._format = SimpleDateFormat("yyyyMMdd")

    def config_def(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, config: Mapping[str, Any]) -> None:
        values = simple_config(self.CONFIG_DEF, config)
        self._topic_format = values["topic.format"]
        self._format = SimpleDateFormat(values["timestamp.format"])

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        if record.timestamp is None:
            raise DataException(f"Timestamp missing on record: {record}")
        stamp = self._format.format(timestamp_from_millis(record.timestamp))
        topic = self._topic_format.replace("${topic}", record.topic or "").replace("${timestamp}", stamp)
        return record.new_record(topic=topic)
