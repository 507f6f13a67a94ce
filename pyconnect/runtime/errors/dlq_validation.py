"""SinkConnectorConfig.validate's dead letter queue rules: a sink may not consume its own DLQ."""

from __future__ import annotations

import re
from collections.abc import Mapping

from pyconnect.runtime.errors.config_keys import DLQ_TOPIC_NAME

TOPICS = "topics"
TOPICS_REGEX = "topics.regex"


def _java_list(topics: list[str]) -> str:
    return "[" + ", ".join(topics) + "]"  # Java's List.toString


def _topics_list(raw: str) -> list[str]:
    """SinkConnectorConfig.parseTopicsList: the LIST's items, empty ones dropped, each once."""
    return list(dict.fromkeys(t.strip() for t in raw.split(",") if t.strip()))


def dlq_errors(config: Mapping[str, str]) -> dict[str, list[str]]:
    """Errors by key when the DLQ topic is one of `topics` or matches `topics.regex` (Java's messages);
    empty when the config is fine or names no DLQ topic. The other topics rules (both or neither of
    `topics`/`topics.regex`) are not checked here."""
    dlq = (config.get(DLQ_TOPIC_NAME) or "").strip()
    if not dlq:
        return {}
    errors: dict[str, list[str]] = {}
    topics_raw = config.get(TOPICS) or ""
    if topics_raw.strip():
        topics = _topics_list(topics_raw)
        if dlq in topics:
            errors[TOPICS] = [f"The DLQ topic '{dlq}' may not be included in the list of topics "
                              f"('{TOPICS}={_java_list(topics)}') consumed by the connector"]
    regex = config.get(TOPICS_REGEX) or ""
    if regex.strip():
        try:
            matched = re.fullmatch(regex, dlq) is not None
        except re.error:
            matched = False  # the regex's own validator reports it
        if matched:
            errors[TOPICS_REGEX] = [f"The DLQ topic '{dlq}' may not be matched by the regex for the topics "
                                    f"('{TOPICS_REGEX}={regex}') consumed by the connector"]
    return errors
