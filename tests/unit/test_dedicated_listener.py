"""Where a dedicated MirrorMaker's REST API listens when nothing says, and the chart saying it."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from connectors.mirror.maker_config import MirrorMakerConfig
from pyconnect.config.properties import parse_properties
from replikafka.mirror_maker import LOOPBACK_LISTENER, rest_listeners
from tests.harness.helm_chart import by_kind, render_values

FILE = "clusters = A, B\nA.bootstrap.servers = a:9092\nB.bootstrap.servers = b:9092\nA->B.enabled = true\n"


def mm2(extra: str = "") -> MirrorMakerConfig:
    return MirrorMakerConfig(parse_properties(FILE + extra, "mm2.properties"), resolve_providers=False)


def test_no_listener_is_loopback_said_once(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="replikafka.mirror_maker"):
        assert rest_listeners(mm2(), None) == LOOPBACK_LISTENER == "http://127.0.0.1:8083"
    (line,) = [r.getMessage() for r in caplog.records if "only (this machine)" in r.getMessage()]
    assert "mm2.properties sets no `listeners`" in line and "listeners = http://0.0.0.0:8083" in line


@pytest.mark.parametrize(("extra", "given", "expected"), [
    ("listeners = http://0.0.0.0:9000\n", None, "http://0.0.0.0:9000"),
    ("listeners = http://0.0.0.0:9000\n", "http://127.0.0.1:9100", "http://127.0.0.1:9100"),
    ("", "http://:9100", "http://:9100"),
    ("dedicated.mode.enable.internal.rest = true\n", None, "http://:8083"),
], ids=["file", "flag-over-file", "flag", "internal-rest-explicit"])
def test_an_explicit_listener_is_honoured(caplog: pytest.LogCaptureFixture, extra: str, given: str | None,
                                          expected: str) -> None:
    with caplog.at_level(logging.INFO, logger="replikafka.mirror_maker"):
        assert rest_listeners(mm2(extra), given) == expected
    assert not [r for r in caplog.records if "only (this machine)" in r.getMessage()]


def args(values: dict[str, Any]) -> list[str]:
    pytest.importorskip("helm_python", reason="helm-python-sdk is not installed (pip install -e '.[test]')")
    container = by_kind(render_values(values), "Deployment")["spec"]["template"]["spec"]["containers"][0]
    return [str(a) for a in container["args"]]


RAW = "clusters = A, B\nA.bootstrap.servers = a:9092\nB.bootstrap.servers = b:9092\nA->B.enabled = true\n"


def test_chart_serves_the_pod_interface_for_raw_properties_without_listeners() -> None:
    """The chart's probes and Service reach the REST API on the pod's IP: rawProperties without `listeners`
    get `--listeners http://0.0.0.0:<rest port>`; a file that sets it, or the rendered file, are left alone."""
    base = {"mode": "mirror-maker", "target": {"alias": "B", "bootstrapServers": "b:9092"}}
    assert args({**base, "rawProperties": RAW}) == [
        "mirror-maker", "/etc/replikafka/config/mm2.properties", "--listeners", "http://0.0.0.0:8083",
        "--clusters", "B"]
    assert "--listeners" not in args({**base, "rawProperties": RAW + "listeners = http://0.0.0.0:8083\n"})
    assert "--listeners" not in args({**base, "mirrors": [{"source": {"alias": "A", "bootstrapServers": "a:9092"}}]})
