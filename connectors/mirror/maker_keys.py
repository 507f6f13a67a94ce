"""What an mm2.properties top-level key that Kafka's MirrorMakerConfig does not pass on is, and what to tell the user.

Such a key is one of three things:
- a typo of a key the top level does pass on (`sync.group.offset.enabled`): the suggestion names that key;
- a real setting of another scope: a connector's (`transforms.t.type`, set per flow) or a cluster's
  client or herder setting (`linger.ms`, set per cluster), and the advice names that scope;
- neither: it is said to be no setting at all.
Invariant: advice to set a key per cluster or per flow is given only for a key that is a setting there, so a
typo is never repeated as if it were a key. With `connector.config.unknown.keys = refuse` a typo is an error.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

from connectors.mirror.config import CONFIG_PREFIXES, MIRROR_KEYS
from connectors.mirror.schema_config import CLUSTER_KEYS
from pyconnect.config.worker import WORKER_CONFIG
from pyconnect.kafka.config import is_client_key

# The worker setting that turns typo warnings into refusals, for REST connector configs and for this file.
UNKNOWN_KEYS = "connector.config.unknown.keys"
REFUSED = f"(refused: {UNKNOWN_KEYS} = refuse)"
# As the runtime's typo check (pyconnect.runtime.herder.input_checks): "topcis" for "topics" is 0.83.
CUTOFF = 0.8
# Keys of a connector's config that no ConfigDef names: Connect's own prefixes and the MM2 connectors'.
_CONNECTOR_PREFIXES = ("transforms.", "predicates.", "topic.creation.", "producer.override.", "consumer.override.",
                       "admin.override.") + tuple(p for p in CONFIG_PREFIXES if p not in ("producer.", "consumer.",
                                                                                           "admin."))
_SOURCE_ONLY = {"exactly.once.support", "transaction.boundary"}  # SourceConnectorConfig's: not in allConfigNames
_CLIENT_ROLES = ("producer.", "consumer.", "admin.")
_PASSED_ON = ("Kafka's MirrorMakerConfig passes on top-level connector settings, worker settings (offset.storage*, "
              "config.storage*, status.storage*, converters, task*, worker*, replication.policy*) and client "
              "bootstrap/security/SSL/SASL settings only")


@dataclass(frozen=True)
class Unused:
    """A top-level key that is not passed on: its suggestion (a typo) or the advice for it."""

    key: str
    suggestion: str | None

    def typo(self) -> str:
        """The typo's message (the same words as a connector config's typo warning)."""
        return f"unknown key; did you mean {self.suggestion}?"

    def advice(self) -> str:
        """Why the key does nothing, and where it would (only when it is a setting somewhere)."""
        if is_connector_key(self.key):
            return f"{_PASSED_ON}; set it per flow as <source>-><target>.{self.key}"
        if is_cluster_key(self.key):
            return f"{_PASSED_ON}; set it per cluster as <alias>.{self.key}"
        return "it is not a setting of MirrorMaker 2, its connectors, its herders or Kafka's clients"


def is_connector_key(key: str) -> bool:
    """A setting of the MM2 connectors' configs (their ConfigDefs, the keys they read, Connect's prefixes)."""
    return key in MIRROR_KEYS or key in _SOURCE_ONLY or key.startswith(_CONNECTOR_PREFIXES)


def is_cluster_key(key: str) -> bool:
    """A setting of a cluster's Kafka clients or of the herders on it (written as `<alias>.<key>`)."""
    return is_client_key(key) or key.startswith(_CLIENT_ROLES) or key in WORKER_CONFIG.keys or key in CLUSTER_KEYS


def unused(key: str, passed_on: Iterable[str]) -> Unused:
    """What the top-level `key`, which is not passed on, is: a real key of another scope, or a typo of one
    of `passed_on` (the names the top level does pass on), or neither."""
    if is_connector_key(key) or is_cluster_key(key):
        return Unused(key, None)
    close = difflib.get_close_matches(key, sorted(passed_on), n=1, cutoff=CUTOFF)
    return Unused(key, close[0] if close else None)


def refuses(value: str | None) -> bool:
    """`connector.config.unknown.keys = refuse` (case and surrounding blanks aside, as the worker reads it)."""
    return value is not None and value.strip().lower() == "refuse"
