"""The environment variables the product reads, under their two names.

Every variable has a `REPLIKAFKA_*` name and, from before the command was renamed, a `PYCONNECT_*` one.

Invariant: the `REPLIKAFKA_*` name wins whenever it is set, even to an empty string (a deliberate empty
value must not be overridden by a stale old name); the `PYCONNECT_*` name is read only when the new one is
absent. Callers pass the suffix alone (`LOG_FORMAT`), so no caller can read one name and forget the other.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import overload

PREFIX = "REPLIKAFKA_"
OLD_PREFIX = "PYCONNECT_"

# Every variable the product (not its test suite) reads, by suffix, with its documentation: the commands
# reference lists them, and a unit test checks that every `env_value` call in the product names one of them.
VARIABLES: dict[str, str] = {
    "LOG_FORMAT": "Log format of every command: `text` (the default) or `json`; `--log-format` overrides it.",
    "TEST_BOOTSTRAP": "For the project's tests: run the broker tests against your own clusters, given as "
                      "`;`-separated bootstrap servers (one entry per cluster), instead of starting local brokers.",
    "TEST_BROKER": "For the project's tests: `kafka` runs the broker tests against Apache Kafka: in Docker "
                   "(testcontainers) where a Docker engine runs, else as a local Java process.",
    "TEST_KAFKA_VERSION": "For the project's tests: which Apache Kafka the local Java brokers run, a lane of "
                          "`scripts/kafka-versions` (`4`, the default, or `3.9`) or an exact version there.",
    "KAFKA_CACHE": "For the project's tests: the directory holding Apache Kafka's jars "
                   "(default `~/.cache/replikafka`); `scripts/fetch-kafka.sh` fills it.",
    "TEST_NO_BROKERS": "For the project's tests: set by `scripts/test.sh --fast`, whose tests start no broker; "
                       "any broker start then fails with a sentence naming the marker to add.",
}


def env_names(suffix: str) -> tuple[str, str]:
    """The variable's new and old names: `("REPLIKAFKA_<suffix>", "PYCONNECT_<suffix>")`."""
    return PREFIX + suffix, OLD_PREFIX + suffix


@overload
def env_value(suffix: str, default: str, environ: Mapping[str, str] | None = None) -> str: ...


@overload
def env_value(suffix: str, default: None = None, environ: Mapping[str, str] | None = None) -> str | None: ...


def env_value(suffix: str, default: str | None = None, environ: Mapping[str, str] | None = None) -> str | None:
    """The value of `REPLIKAFKA_<suffix>`, else of `PYCONNECT_<suffix>`, else `default`."""
    env = os.environ if environ is None else environ
    for name in env_names(suffix):
        if name in env:
            return env[name]
    return default
