"""The Kafka client settings MM2 derives, layered as Kafka's MirrorConnectorConfig and MirrorClientConfig.

A connector's client for `side` in {source, target} and `role` in {consumer, producer, admin} is built
(MirrorConnectorConfig.sourceConsumerConfig and friends) from:
1. `<side>.cluster.*`, keeping only MirrorClientConfig.CLIENT_CONFIG_DEF's keys (bootstrap.servers,
   security.protocol, client SSL and SASL settings): other cluster settings are not client settings;
2. `<role>.*` of the connector config, for both sides;
3. `<side>.<role>.*`;
then a consumer gets `enable.auto.commit=false` (forced: offsets are MM2's, never the group's) and
`auto.offset.reset=earliest` unless set. No `group.id` is added: Kafka sets none.

Invariant: no client is built from a connector config carrying a setting that loads code or runs commands
(pyconnect.kafka.unsafe_settings) under any key (ConfigException naming the keys), unless the worker's
`connector.client.config.override.unsafe.allowlist` names it: MM2's connector configs carry client settings
as Connect's `*.override.*` do, and a dedicated process writes them without the REST validation.
"""

from __future__ import annotations

from collections.abc import Mapping

from connectors.mirror.policy import ReplicationPolicy, load_policy
from pyconnect.api.config import ConfigException
from pyconnect.kafka.cluster_labels import alias_label, label_cluster
from pyconnect.kafka.config import invalid_security_protocol, is_mirror_client_key, to_librdkafka
from pyconnect.kafka.unsafe_settings import refuse_unsafe

# Connector settings that start like client prefixes. Kafka hands them to the client as well (as
# `poll.timeout.ms`, `timeout.ms`, `override.*`), where the Java client ignores them; librdkafka would
# refuse them. (`producer.override.*` is Connect's per-connector override, which the worker applies.)
_CONNECTOR_OWN = {"consumer": {"poll.timeout.ms"}, "admin": {"timeout.ms"}, "producer": set()}


def _with_prefix(raw: Mapping[str, str], prefix: str) -> dict[str, str]:
    return {k[len(prefix):]: v for k, v in raw.items() if k.startswith(prefix) and len(k) > len(prefix)}


def java_client_config(raw: Mapping[str, str], side: str, role: str) -> dict[str, str]:
    """The Java client settings MirrorConnectorConfig gives `side`'s `role` (without its client.id)."""
    java = {k: v for k, v in _with_prefix(raw, f"{side}.cluster.").items() if is_mirror_client_key(k)}
    java.update({k: v for k, v in _with_prefix(raw, f"{role}.").items()
                 if k not in _CONNECTOR_OWN[role] and not k.startswith("override.")})
    java.update(_with_prefix(raw, f"{side}.{role}."))
    if role == "consumer":
        java["enable.auto.commit"] = "false"
        java.setdefault("auto.offset.reset", "earliest")
    return java


def client_settings(raw: Mapping[str, str], side: str, role: str) -> dict[str, str]:
    """librdkafka settings for `side` in {source,target} and `role` in {consumer,producer,admin}."""
    refuse_unsafe(raw)  # any key of the connector config: other layers (backfill.<role>.*) build on this one
    settings = to_librdkafka(java_client_config(raw, side, role), role)
    alias = raw.get(f"{side}.cluster.alias")
    if alias:  # the clients' librdkafka log lines then name the cluster by its alias
        label_cluster(settings.get("bootstrap.servers", ""), alias_label(alias))
    return settings


class MirrorClientConfig:
    """Kafka's MirrorClientConfig: what a MirrorClient (RemoteClusterUtils) needs to reach one cluster.

    `props` are MirrorMakerConfig.client_config(alias)'s, or a `--command-config` file's."""

    def __init__(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)
        protocol = self.props.get("security.protocol")
        if protocol is not None:
            error = invalid_security_protocol(protocol)
            if error:
                raise ConfigException(error, {"security.protocol": [error]})

    def _client(self, prefix: str) -> dict[str, str]:
        # AbstractConfig.valuesWithPrefixOverride, then only CLIENT_CONFIG_DEF's keys (defaults left to
        # the client library).
        merged = {k: v for k, v in self.props.items() if is_mirror_client_key(k)}
        merged.update({k: v for k, v in _with_prefix(self.props, prefix).items() if is_mirror_client_key(k)})
        return merged

    def admin_config(self) -> dict[str, str]:
        """Java settings of the admin client (`admin.*` over the top-level client settings)."""
        return self._client("admin.")

    def consumer_config(self) -> dict[str, str]:
        """Java settings of the consumer (`consumer.*` over the top-level client settings)."""
        return self._client("consumer.")

    def producer_config(self) -> dict[str, str]:
        """Java settings of the producer (`producer.*` over the top-level client settings)."""
        return self._client("producer.")

    def replication_policy(self) -> ReplicationPolicy:
        """The configured replication policy (replication.policy.class and separator)."""
        return load_policy(self.props.get("replication.policy.class",
                                          "org.apache.kafka.connect.mirror.DefaultReplicationPolicy"), self.props)
