"""Connect's connector client config override policies: which `<role>.override.*` keys a connector may set.

Followed: Kafka's connect/runtime/.../connector/policy/ (AbstractConnectorClientConfigOverridePolicy,
NoneConnectorClientConfigOverridePolicy, AllConnectorClientConfigOverridePolicy,
AllowlistConnectorClientConfigOverridePolicy of KIP-1188, Kafka 4.2) and WorkerConfig's
`connector.client.config.override.policy` (default All since Kafka 3.0):
- `None` allows no override, `All` every override, `Allowlist` exactly the client keys (names without the
  `producer.override.` / `consumer.override.` / `admin.override.` prefix) in
  `connector.client.config.override.allowlist` (empty by default: then nothing is allowed);
- a policy is named by its alias (`All`), its class's simple name or its class name
  (`org.apache.kafka.connect.connector.policy.AllConnectorClientConfigOverridePolicy`);
- every override a policy refuses gets the error "The '<policy>' policy does not allow '<key>' to be
  overridden in the connector configuration." on that key.

`Principal` (SASL principal overrides) is refused at worker start: per-connector SASL principals are not
supported here. Independently of the policy, pyconnect.kafka.unsafe_settings refuses settings that load code or
run commands.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pyconnect.api.config import ConfigException, ConfigValue
from pyconnect.kafka.unsafe_settings import UNSAFE_ALLOWLIST_KEY, UNSAFE_SETTINGS

POLICY_KEY = "connector.client.config.override.policy"
ALLOWLIST_KEY = "connector.client.config.override.allowlist"
_PACKAGE = "org.apache.kafka.connect.connector.policy."
_SUFFIX = "ConnectorClientConfigOverridePolicy"
IMPLEMENTED = ("None", "All", "Allowlist")


def _aliases(alias: str) -> tuple[str, ...]:
    return alias, alias + _SUFFIX, _PACKAGE + alias + _SUFFIX


_BY_NAME = {name: alias for alias in (*IMPLEMENTED, "Principal") for name in _aliases(alias)}


def policy_alias(value: Any) -> str | None:
    """The alias (`None`, `All`, `Allowlist`, `Principal`) a policy value names, None if it names none."""
    return _BY_NAME.get(str(value).strip())


def policy_error(_name: str, value: Any) -> str | None:
    """Validator of `connector.client.config.override.policy`."""
    alias = policy_alias(value)
    if alias == "Principal":
        return ("The Principal policy is not supported: SASL principal overrides per connector are not supported "
                f"here. Use one of {', '.join(IMPLEMENTED)}.")
    if alias is None:
        return (f"Class {value} could not be found. The connector client config override policies implemented "
                f"here: {', '.join(IMPLEMENTED)} (or their class names, e.g. {_PACKAGE}All{_SUFFIX})")
    return None


def _items(value: Any) -> list[str]:
    return [str(v).strip() for v in (value if isinstance(value, list) else [value])]


def allowlist_error(name: str, value: Any) -> str | None:
    """Validator of `connector.client.config.override.allowlist`: a list without duplicates (Kafka's
    ValidList.anyNonDuplicateValues(true, false))."""
    items = _items(value)
    if len(set(items)) != len(items):
        return f"Configuration '{name}' values must not be duplicated."
    return None


def unsafe_allowlist_error(name: str, value: Any) -> str | None:
    """Validator of the unsafe allowlist: only settings that load code or run commands can be named."""
    unknown = [item for item in _items(value) if item and item not in UNSAFE_SETTINGS]
    if unknown:
        return (f"{', '.join(unknown)} is not a client setting that loads code or runs commands; {name} names "
                f"only these: {', '.join(UNSAFE_SETTINGS)}")
    return None


@dataclass(frozen=True)
class ClientOverridePolicy:
    """A worker's policy: its alias and, for Allowlist, the client keys connectors may override."""

    name: str
    allowlist: frozenset[str] = frozenset()

    def allows(self, key: str) -> bool:
        """Whether a connector may override client key `key` (without its `<role>.override.` prefix)."""
        if self.name == "All":
            return True
        return self.name == "Allowlist" and key in self.allowlist

    def validate(self, overrides: Mapping[str, Any]) -> list[ConfigValue]:
        """One ConfigValue per override (keys without prefix), with the policy's error where refused
        (AbstractConnectorClientConfigOverridePolicy.validate)."""
        return [ConfigValue(key, value, [] if self.allows(key) else [
            f"The '{self.name}' policy does not allow '{key}' to be overridden in the connector configuration."])
            for key, value in overrides.items()]


def policy_from(values: Mapping[str, Any]) -> ClientOverridePolicy:
    """The policy of parsed worker values (keys already validated one by one). An allowlist given to
    another policy would be ignored: refused instead (ConfigException keyed by the allowlist key)."""
    alias = policy_alias(values.get(POLICY_KEY, "All")) or "All"
    allowlist = [item for item in _items(values.get(ALLOWLIST_KEY) or []) if item]
    if allowlist and alias != "Allowlist":
        message = f"it is used only by {POLICY_KEY}=Allowlist (the policy here is {alias}): remove it or use Allowlist"
        raise ConfigException(message, {ALLOWLIST_KEY: [message]})
    return ClientOverridePolicy(alias, frozenset(allowlist))


def unsafe_allowed(values: Mapping[str, Any]) -> frozenset[str]:
    """The unsafe settings parsed worker values let connector configs carry."""
    return frozenset(item for item in _items(values.get(UNSAFE_ALLOWLIST_KEY) or []) if item)
