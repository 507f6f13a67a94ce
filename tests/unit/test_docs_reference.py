"""The docs site's generated reference covers the code: every ConfigDef key in the packages is on the
configuration page with documentation, every REST path on the REST page, every subcommand on the commands page.

The keys are found independently of the generator: every ConfigDef a module of `pyconnect` or `connectors` holds
(at module level or as a class attribute) and every installed connector plugin's `config_def()`.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator

import pytest

from pyconnect.api.config import ConfigDef, ConfigKey
from pyconnect.plugins import registry
from replikafka.reference import cli_help, config_keys, rest_api

PACKAGES = ("pyconnect", "connectors")


def _definitions_in(module: object) -> Iterator[ConfigDef]:
    """The ConfigDefs a module holds at module level or as attributes of the classes it defines."""
    for value in vars(module).values():
        if isinstance(value, ConfigDef):
            yield value
        elif isinstance(value, type) and value.__module__ == getattr(module, "__name__", None):
            yield from (v for v in vars(value).values() if isinstance(v, ConfigDef))


def code_keys() -> list[ConfigKey]:
    """Every ConfigKey of every ConfigDef in the packages and of every connector plugin."""
    found: dict[int, ConfigKey] = {}
    for name in PACKAGES:
        package = importlib.import_module(name)
        for info in pkgutil.walk_packages(package.__path__, f"{name}."):
            for definition in _definitions_in(importlib.import_module(info.name)):
                found.update((id(k), k) for k in definition.keys.values())
    for plugin in registry.all():
        found.update((id(k), k) for k in plugin.cls().config_def().keys.values())
    return list(found.values())


@pytest.fixture(scope="module")
def page() -> str:
    """The generated configuration page."""
    return config_keys.config_page()


def test_the_packages_define_keys_to_check() -> None:
    names = {k.name for k in code_keys()}
    assert {"group.id", "topics", "sync.group.offsets.enabled", "schemas.enable", "regex", "errors.tolerance"} <= names


def test_every_configdef_key_is_in_the_reference(page: str) -> None:
    missing = sorted({k.name for k in code_keys() if f"| `{k.name}` |" not in page})
    assert missing == [], f"ConfigDef keys missing from the generated reference: {missing}"


def test_every_configdef_key_has_documentation() -> None:
    undocumented = sorted({k.name for k in code_keys() if not k.documentation.strip()})
    assert undocumented == [], f"ConfigDef keys without documentation: {undocumented}"


def test_every_key_in_the_reference_has_documentation() -> None:
    undocumented = [(s.title, k.name) for s in config_keys.config_sections() for k in s.keys
                    if not k.documentation.strip()]
    assert undocumented == []


def test_the_reference_shows_type_and_default(page: str) -> None:
    assert "| `offset.flush.interval.ms` | LONG | `60000` |" in page
    assert "| `group.id` | STRING | `(required)` |" in page
    assert "| `sync.group.offsets.enabled` | BOOLEAN | `false` |" in page


def test_every_rest_path_is_in_the_rest_reference() -> None:
    document = rest_api.openapi_document()
    text = rest_api.rest_page()
    missing = [f"{m.upper()} {p}" for p, item in document["paths"].items() for m in item
               if f"| {m.upper()} | `{p}` |" not in text]
    assert missing == []
    assert "| GET | `/connectors/{name}/status` |" in text


def test_every_command_is_in_the_commands_reference() -> None:
    text = cli_help.cli_page()
    for command in ("distributed", "standalone", "mirror-maker", "demo", "offsets", "backfill", "local-broker"):
        assert f"## `replikafka {command}`" in text
    assert "usage: replikafka mirror-maker" in text
    assert "## `replikafka`" in text and "`REPLIKAFKA_LOG_FORMAT`" in text
