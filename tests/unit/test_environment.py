"""Environment variables under their two names (pyconnect/environment.py): `REPLIKAFKA_*` first, then the
older `PYCONNECT_*`; and every variable the product reads is documented in the commands reference."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from pyconnect.environment import VARIABLES, env_names, env_value
from pyconnect.logging_context import JsonFormatter
from replikafka.cli import setup_logging
from replikafka.reference.cli_help import cli_page

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("pyconnect", "connectors", "rest", "replikafka")


def test_the_new_name_wins_and_the_old_one_is_the_fallback() -> None:
    assert env_names("LOG_FORMAT") == ("REPLIKAFKA_LOG_FORMAT", "PYCONNECT_LOG_FORMAT")
    both = {"REPLIKAFKA_LOG_FORMAT": "json", "PYCONNECT_LOG_FORMAT": "text"}
    assert env_value("LOG_FORMAT", "text", both) == "json"
    assert env_value("LOG_FORMAT", "text", {"PYCONNECT_LOG_FORMAT": "json"}) == "json"
    assert env_value("LOG_FORMAT", "text", {"REPLIKAFKA_LOG_FORMAT": "json"}) == "json"
    assert env_value("LOG_FORMAT", "text", {}) == "text"
    assert env_value("LOG_FORMAT", None, {}) is None
    # Set, even to nothing, the new name is what the user asked for: a stale old value does not come back.
    assert env_value("LOG_FORMAT", "text", {"REPLIKAFKA_LOG_FORMAT": "", "PYCONNECT_LOG_FORMAT": "json"}) == ""


@pytest.mark.parametrize(("env", "json_log"), [
    ({"REPLIKAFKA_LOG_FORMAT": "json"}, True),
    ({"PYCONNECT_LOG_FORMAT": "json"}, True),
    ({"REPLIKAFKA_LOG_FORMAT": "text", "PYCONNECT_LOG_FORMAT": "json"}, False),
    ({}, False),
], ids=["new", "old", "new-wins", "neither"])
def test_the_commands_log_format_follows_either_name(monkeypatch: pytest.MonkeyPatch, env: dict[str, str],
                                                     json_log: bool) -> None:
    for name in env_names("LOG_FORMAT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        setup_logging()
        assert isinstance(root.handlers[0].formatter, JsonFormatter) is json_log
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)


def test_every_variable_the_product_reads_is_registered_and_in_the_reference() -> None:
    """No module reads a `PYCONNECT_*`/`REPLIKAFKA_*` name directly, every `env_value` suffix is registered, and
    the commands reference lists each variable under both names."""
    read: set[str] = set()
    for package in PRODUCT:
        for path in (ROOT / package).rglob("*.py"):
            text = path.read_text()
            read |= set(re.findall(r"env_value\(\s*\"([A-Z_]+)\"", text))
            if path != ROOT / "pyconnect/environment.py":
                assert not re.search(r"(environ|getenv)\W{1,8}(PYCONNECT|REPLIKAFKA)_", text), path
    assert "LOG_FORMAT" in read
    assert read <= set(VARIABLES), read - set(VARIABLES)
    page = cli_page()
    for suffix, doc in VARIABLES.items():
        new, old = env_names(suffix)
        assert f"| `{new}` | `{old}` | {doc} |" in page
