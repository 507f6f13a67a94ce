"""Secrets in the configs the REST API returns: hidden on the way out, kept on the way back in.

Connect returns stored configs raw; we deliberately do not (docs/internals/compatibility.md).

Invariants:

* Every answer that carries a connector's or a task's config (`/connectors/{name}`, `/config`, `/tasks`,
  `/tasks-config`, `/connectors?expand=info` and the answers of the writes) shows it through `shown`: a
  value is `[hidden]` when its key is a secret by the rule the logs use (`pyconnect.kafka.config.is_secret_key`)
  or is PASSWORD-typed in the connector's ConfigDef. A value that uses a config provider placeholder
  (`${file:/etc/s.properties:pw}`, or a JAAS line with `password="${file:...}"`) is shown as written, as it
  is stored: the placeholder says where the secret is, not what it is.
* A write (POST, PUT or PATCH of a connector config) that sends `[hidden]` for a key that is shown hidden
  keeps the value stored for that key, so a GET-edit-PUT round trip never stores the literal `[hidden]`.
  With no value stored for that key the write is a 400 naming the key. For any other key `[hidden]` is
  a value like any other.
* The stored value is put back where the write is served (the leader, after forwarding), from the config
  that worker reads: a follower forwards the body as it came.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TypeVar

from pyconnect.kafka.config import is_secret_key
from pyconnect.runtime.herder.herder import Herder
from pyconnect.runtime.herder.request_errors import BadConfig, HerderError, NotFound
from pyconnect.runtime.results import ConnectorInfo, TaskInfo

HIDDEN = "[hidden]"
# A placeholder as Connect's ConfigTransformer reads them: ${provider:[path:]key}.
_PLACEHOLDER = re.compile(r"\$\{[^}:]*:[^}]*\}")

V = TypeVar("V", str, str | None)


def uses_provider(value: str) -> bool:
    """Whether `value` takes its secret from a config provider (holds a `${provider:...}` placeholder)."""
    return _PLACEHOLDER.search(value) is not None


class ConfigSecrets:
    """Which keys of a connector's configs are secret, through one worker's herder (its installed plugins)."""

    def __init__(self, herder: Herder) -> None:
        self.herder = herder
        self._passwords: dict[str, frozenset[str]] = {}  # by connector.class: plugins do not change at run time

    def password_keys(self, config: Mapping[str, str | None]) -> frozenset[str]:
        """The keys the config's connector class types PASSWORD (none for an unknown class)."""
        class_name = config.get("connector.class") or ""
        if class_name not in self._passwords:
            try:
                keys = self.herder.plugin_config(class_name) if class_name else []
            except HerderError:  # not installed (any more): only the name rule applies
                keys = []
            self._passwords[class_name] = frozenset(k.name for k in keys if k.type == "PASSWORD")
        return self._passwords[class_name]

    def _secret(self, key: str, passwords: frozenset[str]) -> bool:
        return key in passwords or is_secret_key(key)

    def shown(self, config: Mapping[str, V], connector: Mapping[str, str | None] | None = None) -> dict[str, V]:
        """`config` as answered: secrets `[hidden]`, placeholders and nulls as stored. `connector`: the
        connector's config when `config` is one of its tasks' (its class types the keys)."""
        passwords = self.password_keys(config if connector is None else connector)
        return {k: HIDDEN if v is not None and self._secret(k, passwords) and not uses_provider(v) else v
                for k, v in config.items()}

    def info(self, info: ConnectorInfo) -> ConnectorInfo:
        """`info` with its config shown."""
        return ConnectorInfo(info.name, self.shown(info.config), info.tasks, info.type)

    def tasks(self, name: str, tasks: list[TaskInfo]) -> list[TaskInfo]:
        """Task configs shown, typed by connector `name`'s class."""
        try:
            connector: Mapping[str, str | None] = self.herder.connector_config(name)
        except NotFound:  # deleted since its tasks were read: the name rule still applies
            connector = {}
        return [TaskInfo(t.id, self.shown(t.config, connector)) for t in tasks]

    def stored(self, name: str) -> dict[str, str]:
        """Connector `name`'s stored config, {} when there is no such connector."""
        try:
            return self.herder.connector_config(name)
        except NotFound:
            return {}

    def restored(self, name: str, config: Mapping[str, V], stored: Mapping[str, str]) -> dict[str, V]:
        """`config` (a write's body) with each `[hidden]` secret replaced by its `stored` value; BadConfig
        naming the key when connector `name` has no value stored for it."""
        passwords = self.password_keys(config) | self.password_keys(stored)
        out = dict(config)
        for key, value in config.items():
            if value != HIDDEN or not self._secret(key, passwords):
                continue
            if stored.get(key) is None:
                raise BadConfig(f"Connector {name} has no stored value for {key} to keep: '{HIDDEN}' stands for "
                                "the stored secret (as GET shows it); send the value itself")
            out[key] = stored[key]
        return out
