"""Connect config providers: `config.providers=<names>` with `config.providers.<name>.class` and
`config.providers.<name>.param.*`, resolving placeholders `${<name>:[path:]key}` as Kafka's
ConfigTransformer does.

Built-ins (Java names map to them): FileConfigProvider (`${file:/path/to.properties:key}`),
EnvVarConfigProvider (`${env:VAR}`) and DirectoryConfigProvider (`${directory:/dir:file}`, the
content of one file, e.g. a mounted Kubernetes Secret key). Other classes load by Python path or
from the `pyconnect.config_providers` entry-point group; an unknown class is an error naming its key.

Which providers apply: those a config declares itself (MM2 connector configs carry the file's
`config.providers*`, as Kafka's MirrorConnectorConfig resolves them), over the worker's (`install`).
When no `config.providers` is declared anywhere, file, env and directory are available under those
names (a convenience Kafka does not have: there, undeclared providers leave placeholders as they are).
A placeholder naming an undeclared provider is left as it is, as in Kafka; in a connector config it is
refused when the config is validated (pyconnect.runtime.herder.input_checks).

As in Connect, stored configs keep the placeholders; values are resolved only when a connector or
task starts (`resolve_config`), and task configs derived from resolved values get the placeholders
back before they are stored (`restore_placeholders`), so secrets never reach the config topic or REST.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from pyconnect.api.config_provider import ConfigProvider, ConfigProviderError
from pyconnect.api.loading import ClassLoadError, java_aliases, load_class
from pyconnect.config.properties import ConfigFileError, load_properties

ProviderError = ConfigProviderError  # the name the rest of the code base uses
ENTRY_POINT_GROUP = "pyconnect.config_providers"
# Kafka's ConfigTransformer.DEFAULT_PATTERN: provider, optional path (up to the next colon), key.
_PLACEHOLDER = re.compile(r"\$\{([^}]*?):(?:([^}]*?):)?([^}]*?)\}")


def _allowed(config: Mapping[str, str]) -> list[Path] | None:
    raw = config.get("allowed.paths", "").strip()
    return [Path(p.strip()).resolve() for p in raw.split(",") if p.strip()] if raw else None


def _check_allowed(path: str, allowed: list[Path] | None) -> None:
    """KIP-993 `allowed.paths`: only files under these directories may be read."""
    if allowed is None:
        return
    resolved = Path(path).resolve()
    if not any(resolved == a or a in resolved.parents for a in allowed):
        raise ProviderError(f"The path {path} is not allowed to be accessed")


class FileConfigProvider(ConfigProvider):
    """`${file:/path/to.properties:key}`: a key of a properties file."""

    allowed: list[Path] | None = None

    def configure(self, config: Mapping[str, str]) -> None:
        self.allowed = _allowed(config)

    def get(self, path: str, keys: set[str]) -> dict[str, str]:
        _check_allowed(path, self.allowed)
        try:
            values = load_properties(path).values()
        except ConfigFileError as exc:
            raise ProviderError(f"config provider file: {exc.reason}") from None
        missing = sorted(k for k in keys if k not in values)
        if missing:
            raise ProviderError(f"key {missing[0]!r} not found in {path}")
        return {k: values[k] for k in keys}


class DirectoryConfigProvider(ConfigProvider):
    """`${directory:/dir:file}`: the content of a file in a directory (trailing newlines dropped)."""

    allowed: list[Path] | None = None

    def configure(self, config: Mapping[str, str]) -> None:
        self.allowed = _allowed(config)

    def get(self, path: str, keys: set[str]) -> dict[str, str]:
        out = {}
        for key in keys:
            target = os.path.join(path, key)
            _check_allowed(target, self.allowed)
            try:
                with open(target, encoding="utf-8") as handle:
                    out[key] = handle.read().rstrip("\n")
            except OSError as exc:
                raise ProviderError(f"cannot read {target}: {exc.strerror}") from None
        return out


class EnvVarConfigProvider(ConfigProvider):
    """`${env:VAR}`: an environment variable; `allowlist.pattern` limits which ones may be read."""

    allowlist: re.Pattern[str] | None = None

    def configure(self, config: Mapping[str, str]) -> None:
        pattern = config.get("allowlist.pattern")
        self.allowlist = re.compile(pattern) if pattern else None

    def get(self, path: str, keys: set[str]) -> dict[str, str]:
        if path:
            raise ProviderError(f"Path is not supported for EnvVarConfigProvider, invalid value '{path}'")
        for key in sorted(keys):
            if key not in os.environ or (self.allowlist is not None and not self.allowlist.fullmatch(key)):
                raise ProviderError(f"environment variable {key} is not set")
        return {k: os.environ[k] for k in keys}


BUILT_INS = java_aliases("org.apache.kafka.common.config.provider",
                         [FileConfigProvider, DirectoryConfigProvider, EnvVarConfigProvider])


def implicit_providers() -> dict[str, ConfigProvider]:
    """file, env and directory under those names: what applies when no config declares providers."""
    return {"file": FileConfigProvider(), "env": EnvVarConfigProvider(), "directory": DirectoryConfigProvider()}


class ProviderClassError(ProviderError):
    """A `config.providers.<name>.class` that names no usable class; `key` is that key."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"{key}: {reason}")
        self.key, self.reason = key, reason


def _names(value: str) -> list[str]:
    return [n.strip() for n in value.split(",") if n.strip()]


def declares_providers(config: Mapping[str, str]) -> bool:
    return bool(_names(config.get("config.providers", "")))


def providers_from_config(config: Mapping[str, str]) -> dict[str, ConfigProvider]:
    """The providers `config.providers` declares, configured; `{}` when it declares none.

    Raises ProviderClassError (a ProviderError) naming the `config.providers.<name>.class` key when a
    class is missing, unknown or not a ConfigProvider (MM2's file loader and the worker config call this)."""
    out: dict[str, ConfigProvider] = {}
    for name in _names(config.get("config.providers", "")):
        key = f"config.providers.{name}.class"
        class_name = config.get(key, "").strip()
        if not class_name:
            raise ProviderClassError(key, f"missing: config.providers lists {name!r} but names no class for it")
        try:
            provider: ConfigProvider = load_class(class_name, ConfigProvider, BUILT_INS, ENTRY_POINT_GROUP)()
        except ClassLoadError as exc:
            raise ProviderClassError(key, f"Invalid value {class_name} for configuration {key}: {exc}") from None
        prefix = f"config.providers.{name}.param."
        provider.configure({k[len(prefix):]: v for k, v in config.items() if k.startswith(prefix)})
        out[name] = provider
    return out


_installed: dict[str, ConfigProvider] | None = None


def install(providers: dict[str, ConfigProvider] | None) -> None:
    """Make these the worker's providers for every config this process resolves (None: undeclared)."""
    global _installed
    _installed = providers


def providers_for(config: Mapping[str, str]) -> dict[str, ConfigProvider]:
    """The providers that apply to `config` (see the module docstring)."""
    own = providers_from_config(config)
    if _installed is None and not own:
        return implicit_providers()
    return {**(_installed or {}), **own}


def resolve(value: str, providers: Mapping[str, ConfigProvider] | None = None) -> str:
    """`value` with every placeholder of a known provider replaced; raises ProviderError."""
    active = providers if providers is not None else providers_for({})

    def replace(match: re.Match[str]) -> str:
        name, path, key = match.group(1), match.group(2) or "", match.group(3)
        provider = active.get(name)
        if provider is None:
            return match.group(0)
        return provider.get(path, {key})[key]
    return _PLACEHOLDER.sub(replace, value)


def has_placeholder(value: str) -> bool:
    return _PLACEHOLDER.search(value) is not None


def placeholder_providers(value: str) -> list[str]:
    """The provider names `value`'s placeholders use, in order, each once."""
    return list(dict.fromkeys(m.group(1) for m in _PLACEHOLDER.finditer(value)))


def resolve_config(config: Mapping[str, str],
                   providers: Mapping[str, ConfigProvider] | None = None) -> dict[str, str]:
    """Every placeholder resolved; raises ProviderError naming the key."""
    active = providers if providers is not None else providers_for(config)
    out = {}
    for key, value in config.items():
        try:
            out[key] = resolve(value, active) if has_placeholder(value) else value
        except ProviderError as exc:
            raise ProviderError(f"{key}: {exc}") from None
    return out


def restore_placeholders(derived: Mapping[str, str], raw: Mapping[str, str]) -> dict[str, str]:
    """Put the raw `${...}` back wherever a derived config carries a value resolved from one."""
    active = providers_for(raw)
    resolved = {resolve(v, active): v for v in raw.values() if has_placeholder(v)}
    return {k: resolved.get(v, v) for k, v in derived.items()}
