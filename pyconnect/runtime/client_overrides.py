"""A connector's client overrides checked against the worker's rules, at validation and when tasks start.

Followed: Kafka's AbstractHerder.validateClientOverrides (which clients a connector uses, and the override
errors reported on the prefixed keys of the validate answer) and Worker.connectorClientConfigOverrides (the
same check again when a task's clients are built: "Client Config Overrides not allowed").

Invariants:
- a task's client gets a `<role>.override.*` setting only if the worker's policy
  (pyconnect.config.client_override_policy) allows that key; a refused one fails the task before any client
  exists, whatever path the config took (REST, a standalone file, a config written by an older worker);
- no connector config key setting a client setting that loads code or runs commands
  (pyconnect.kafka.unsafe_settings) reaches a client unless the worker allows it, under every policy.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pyconnect.api.config import ConfigException, ConfigType
from pyconnect.config.worker import WorkerConfig
from pyconnect.kafka.config import redact
from pyconnect.kafka.unsafe_settings import unsafe_errors
from pyconnect.runtime.errors.config_keys import DLQ_TOPIC_NAME
from pyconnect.runtime.results import ConfigInfo, ConfigKeyInfo, ConfigValueInfo

PREFIXES = {"producer": "producer.override.", "consumer": "consumer.override.", "admin": "admin.override."}


def roles_used(config: Mapping[str, str], sink: bool) -> list[str]:
    """The clients whose overrides Connect checks (AbstractHerder.connectorUsesProducer/Admin/Consumer): a
    source's producer, and its admin if it creates topics; a sink's consumer, and its producer and admin if
    it has a dead letter queue."""
    dlq = bool(str(config.get(DLQ_TOPIC_NAME) or "").strip())
    if sink:
        return ["producer", "admin", "consumer"] if dlq else ["consumer"]
    creates_topics = any(k.startswith("topic.creation.") for k in config)
    return ["producer", "admin"] if creates_topics else ["producer"]


def _overrides(config: Mapping[str, str], role: str) -> dict[str, str]:
    prefix = PREFIXES[role]
    return {k[len(prefix):]: v for k, v in config.items() if k.startswith(prefix)}


def override_errors(worker: WorkerConfig, config: Mapping[str, str], roles: Iterable[str]) -> dict[str, list[str]]:
    """Connector config key -> its errors: the policy's on the overrides of `roles`, and the refusal of
    unsafe settings on any key."""
    errors: dict[str, list[str]] = {}
    for role in roles:
        for value in worker.client_overrides.validate(_overrides(config, role)):
            if value.errors:
                errors.setdefault(PREFIXES[role] + value.name, []).extend(value.errors)
    for key, message in unsafe_errors(config, worker.unsafe_allowed).items():
        errors.setdefault(key, []).append(message)
    return errors


def _definition(name: str) -> ConfigKeyInfo:
    # Connect shows the client's own ConfigDef entry (ProducerConfig...) under the prefixed name; librdkafka's
    # settings have no such definition here, so the entry says what the key is.
    return ConfigKeyInfo(name=name, type=ConfigType.STRING.value, required=False, default_value=None,
                         importance="LOW", documentation="A client setting of the connector's tasks.",
                         group=None, order=-1, width="NONE", display_name=name, dependents=[])


def with_override_errors(configs: list[ConfigInfo], config: Mapping[str, str], sink: bool,
                         worker: WorkerConfig | None) -> list[ConfigInfo]:
    """`configs` (a validate answer's entries) plus an entry per override of the clients the connector uses,
    as Connect lists them (with the policy's errors, if any), and the unsafe-setting errors on their keys
    (added to a key's entry, or as a new entry)."""
    if worker is None:
        return configs
    roles = roles_used(config, sink)
    errors = override_errors(worker, config, roles)
    overrides = [PREFIXES[role] + key for role in roles for key in _overrides(config, role)]
    out = list(configs)
    named = {c.value.name: c for c in configs}
    for key in dict.fromkeys([*overrides, *errors]):
        messages = errors.get(key, [])
        if key in named:
            named[key].value.errors.extend(m for m in messages if m not in named[key].value.errors)
        else:
            shown = redact({key: str(config[key])})[key]
            out.append(ConfigInfo(_definition(key), ConfigValueInfo(key, shown, [], messages, True)))
    return out


def task_overrides(worker: WorkerConfig, config: Mapping[str, str], role: str) -> dict[str, str]:
    """The `<role>.override.*` settings (prefix stripped) a task's client gets; ConfigException if the
    policy refuses one or the connector config carries an unsafe setting the worker does not allow."""
    errors = override_errors(worker, config, [role])
    if errors:
        raise ConfigException("Client Config Overrides not allowed: " + "; ".join(
            f"{key}: {' '.join(messages)}" for key, messages in errors.items()), errors)
    return _overrides(config, role)
