"""The config-provider SPI, shaped like Kafka's `org.apache.kafka.common.config.provider.ConfigProvider`.

A provider named `<name>` in `config.providers` resolves the placeholders `${<name>:[path:]key}`.
Plugins subclass `ConfigProvider` and are named in `config.providers.<name>.class` by Python path
or by an entry point of the `pyconnect.config_providers` group; `config.providers.<name>.param.*`
settings are handed to `configure`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping


class ConfigProviderError(ValueError):
    """A placeholder that cannot be resolved (the message never contains a resolved value)."""


class ConfigProvider(ABC):
    """Looks up configuration values by path and key."""

    def configure(self, config: Mapping[str, str]) -> None:  # noqa: B027 - optional hook, as in Kafka
        """Receive the `config.providers.<name>.param.*` settings (prefix stripped)."""

    @abstractmethod
    def get(self, path: str, keys: set[str]) -> dict[str, str]:
        """Values of `keys` at `path` ("" when the placeholder has no path).

        Raise ConfigProviderError for a missing path or key: the runtime refuses to start a
        connector with an unresolved secret rather than pass the placeholder on."""

    def close(self) -> None:  # noqa: B027 - optional hook, as in Kafka
        """Release resources; called when the provider is no longer needed."""
