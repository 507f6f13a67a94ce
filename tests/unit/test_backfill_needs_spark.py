"""`backfill.enabled=true` where PySpark is not installed (the slim image, `pip install replikafka`) is a config
error on that key, not a batch task failing later with an import error."""

from __future__ import annotations

import importlib.util

import pytest

from connectors.mirror.config import SOURCE


def test_backfill_without_pyspark_is_refused_on_its_key(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def without_pyspark(name: str, *args: object) -> object:
        return None if name == "pyspark" else real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.util, "find_spec", without_pyspark)
    values = SOURCE.validate_all({"backfill.enabled": "true"})
    assert any("PySpark is not installed" in e and "replikafka[spark]" in e for e in values["backfill.enabled"].errors)
    assert not SOURCE.validate_all({"backfill.enabled": "false"})["backfill.enabled"].errors


def test_backfill_with_pyspark_installed_is_accepted() -> None:
    assert importlib.util.find_spec("pyspark") is not None  # the test install has the spark extra
    assert not SOURCE.validate_all({"backfill.enabled": "true"})["backfill.enabled"].errors
