"""The Kafka client settings an MM2 connector derives from its config (MirrorConnectorConfig's layering)."""

from __future__ import annotations

from collections.abc import Mapping

from pyconnect.kafka.config import is_client_key, to_librdkafka


def _cluster(raw: Mapping[str, str], side: str) -> dict[str, str]:
    prefix = f"{side}.cluster."
    return {k[len(prefix):]: v for k, v in raw.items() if k.startswith(prefix) and is_client_key(k[len(prefix):])}


def client_settings(raw: Mapping[str, str], side: str, role: str) -> dict[str, str]:
    """librdkafka settings for `side` in {source,target} and `role` in {consumer,producer,admin}:
    `<side>.cluster.*` client keys, then `<side>.<role>.*` overrides (MM2's layering)."""
    java = _cluster(raw, side)
    prefix = f"{side}.{role}."
    java.update({k[len(prefix):]: v for k, v in raw.items() if k.startswith(prefix)})
    conf = to_librdkafka(java, role)
    if role == "consumer":
        conf.setdefault("enable.auto.commit", "false")
        conf.setdefault("auto.offset.reset", "earliest")
    return conf
