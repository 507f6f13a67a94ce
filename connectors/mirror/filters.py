"""Topic, group and config-property filters with MM2's defaults and full-match semantics."""

from __future__ import annotations

import re
from collections.abc import Iterable

DEFAULT_TOPICS = [".*"]
DEFAULT_TOPICS_EXCLUDE = [r".*[\-\.]internal", r".*\.replica", "__.*"]
DEFAULT_GROUPS = [".*"]
DEFAULT_GROUPS_EXCLUDE = ["console-consumer-.*", "connect-.*", "__.*"]
DEFAULT_CONFIG_PROPERTIES_EXCLUDE = [
    r"follower\.replication\.throttled\.replicas", r"leader\.replication\.throttled\.replicas",
    r"message\.timestamp\.difference\.max\.ms", r"message\.timestamp\.type",
    r"unclean\.leader\.election\.enable", r"min\.insync\.replicas",
]


def compile_list(patterns: Iterable[str]) -> re.Pattern[str] | None:
    """Join a list into one regex matched against the whole name; an empty list matches nothing.

    Raises ValueError naming the pattern that does not compile.
    """
    items = [p.strip() for p in patterns if p.strip()]
    if not items:
        return None
    for p in items:
        try:
            re.compile(p)
        except re.error as exc:
            raise ValueError(f"invalid regular expression {p!r}: {exc}") from None
    return re.compile("|".join(f"(?:{p})" for p in items))


class RegexFilter:
    """Accepts a name when the include list matches it fully and the exclude list does not."""

    def __init__(self, include: Iterable[str], exclude: Iterable[str]) -> None:
        self._include = compile_list(include)
        self._exclude = compile_list(exclude)

    def accepts(self, name: str) -> bool:
        if self._include is None or self._include.fullmatch(name) is None:
            return False
        return self._exclude is None or self._exclude.fullmatch(name) is None


class TopicFilter(RegexFilter):
    """MM2's DefaultTopicFilter (`topics`, `topics.exclude`)."""


class GroupFilter(RegexFilter):
    """MM2's DefaultGroupFilter (`groups`, `groups.exclude`)."""


class ConfigPropertyFilter:
    """MM2's DefaultConfigPropertyFilter (`config.properties.exclude`)."""

    def __init__(self, exclude: Iterable[str]) -> None:
        self._exclude = compile_list(exclude)

    def should_replicate(self, name: str) -> bool:
        return self._exclude is None or self._exclude.fullmatch(name) is None
