"""The MirrorSource connector's schema replication settings (connectors.mirror.schema_mapper does the work).

In mm2.properties a cluster's registry is `<alias>.schema.registry.url` (and its auth and TLS keys), which
MirrorMakerConfig hands to a flow's connectors as `source.cluster.schema.registry.*` and
`target.cluster.schema.registry.*`; the switch is per flow: `<source>-><target>.schema.replication.enabled`.

Invariants:
- Off by default: no registry is asked anything, records pass as they are.
- On without a registry URL for either side is a config error naming the missing key (validation and the
  task's start both refuse it); a registry setting given while the switch is off gets a warning in the
  task's log naming the switch, never silent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyconnect.api import ConfigValue
from pyconnect.api.config import ConfigDef, ConfigException, ConfigKey, ConfigType, Importance

SWITCH = "schema.replication.enabled"
PREFIX = "schema.registry."
# confluent-kafka's registry client settings, as `<side>.cluster.schema.registry.<key>`.
_CLIENT = (
    ("url", ConfigType.STRING, Importance.MEDIUM, "URL of the {side} cluster's schema registry (Confluent's API; "
     "for Apicurio Registry its /apis/ccompat/v7 path). Needed with schema.replication.enabled; in "
     "mm2.properties `<alias>.schema.registry.url`."),
    ("basic.auth.user.info", ConfigType.PASSWORD, Importance.LOW, "HTTP basic auth of the {side} registry, as "
     "`user:password`."),
    ("ssl.ca.location", ConfigType.STRING, Importance.LOW, "CA certificate file (PEM) that verifies the {side} "
     "registry's TLS certificate (unset: the system's CAs)."),
    ("ssl.certificate.location", ConfigType.STRING, Importance.LOW, "Client certificate file (PEM) for mutual TLS "
     "with the {side} registry."),
    ("ssl.key.location", ConfigType.STRING, Importance.LOW, "Private key file (PEM) of that client certificate."),
    ("ssl.key.password", ConfigType.PASSWORD, Importance.LOW, "Password of that private key."),
)
SIDES = ("source", "target")
# A cluster's registry settings in mm2.properties (`<alias>.schema.registry.url`, ...).
CLUSTER_KEYS = frozenset(PREFIX + key for key, *_ in _CLIENT)


def registry_key(side: str, key: str) -> str:
    return f"{side}.cluster.{PREFIX}{key}"


SCHEMA_REPLICATION = ConfigDef([
    ConfigKey(SWITCH, ConfigType.BOOLEAN, False, Importance.MEDIUM,
              "Copy the schemas of records in Confluent's wire format (a zero byte, a 4-byte schema id, the Avro, "
              "JSON Schema or Protobuf payload) to the target cluster's schema registry and rewrite each key's and "
              "value's id to the target registry's id of the same schema. Subjects are renamed with the "
              "replication policy (`orders-value` becomes `A.orders-value` under DefaultReplicationPolicy). Needs "
              "source.cluster.schema.registry.url and target.cluster.schema.registry.url. A schema that cannot be "
              "copied follows errors.tolerance: the task fails, or with `all` the record is skipped; a record is "
              "never copied with the source's id (docs/guides/schema-replication.md)."),
    *(ConfigKey(registry_key(side, key), kind, None, importance, doc.format(side=side))
      for side in SIDES for key, kind, importance, doc in _CLIENT),
])


def _enabled(config: Mapping[str, Any]) -> bool:
    return str(config.get(SWITCH, "false")).strip().lower() == "true"


def missing_urls(config: Mapping[str, Any]) -> list[str]:
    """The registry URL keys the switch needs and the config lacks (none when the switch is off)."""
    if not _enabled(config):
        return []
    return [registry_key(side, "url") for side in SIDES if not str(config.get(registry_key(side, "url")) or "").strip()]


def check_schema_replication(config: Mapping[str, str], values: dict[str, ConfigValue]) -> None:
    """Validation: the switch needs both registry URLs."""
    for key in missing_urls(config):
        values.setdefault(key, ConfigValue(key, config.get(key))).errors.append(
            f"{SWITCH}=true needs {key} (the schema registry of that cluster)")


def unused_settings(config: Mapping[str, Any]) -> list[str]:
    """Registry settings given while the switch is off (the task logs a warning naming them and the switch)."""
    if _enabled(config):
        return []
    return sorted(k for k in config if k.startswith(tuple(f"{side}.cluster.{PREFIX}" for side in SIDES)))


def registry_settings(config: Mapping[str, Any], side: str) -> dict[str, str]:
    """confluent-kafka's client settings of `side`'s registry (a ConfigException names a missing URL)."""
    prefix = f"{side}.cluster.{PREFIX}"
    settings = {k[len(prefix):]: str(v) for k, v in config.items() if k.startswith(prefix) and v not in (None, "")}
    if not settings.get("url", "").strip():
        raise ConfigException(f"{SWITCH}=true needs {prefix}url (the schema registry of the {side} cluster)")
    return settings
