"""The chart's `autoRestart` values (Strimzi's KafkaMirrorMaker2 spec.mirrors[].sourceConnector.autoRestart:
enabled, maxRestarts, maxBackoffMinutes; on by default here) rendered into mm2.properties, read back as
MirrorMakerConfig reads it, and run with the chart's command line against real brokers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from connectors.mirror.maker_config import CONNECTORS, MirrorMakerConfig
from pyconnect.config.auto_restart_keys import CONNECTOR_KEYS
from pyconnect.config.properties import parse_properties
from pyconnect.config.worker import WORKER_CONFIG
from pyconnect.runtime.auto_restart import AutoRestartPolicy
from tests.harness.brokers import Broker, free_port
from tests.harness.mirror import mm2_settings
from tests.harness.workers import REPO, wait_for

CHART = Path(__file__).resolve().parents[1] / "helm"
helm = pytest.importorskip("helm_python", reason="helm-python-sdk is not installed (pip install -e '.[test]')")
DEFAULTS = yaml.safe_load((CHART / "ci" / "default-values.yaml").read_text())


def with_mirrors(n: int) -> dict[str, Any]:
    """The default value set with `n` mirrors into its target (the aggregation topology for n > 1)."""
    return {**DEFAULTS, "mirrors": [{"source": {"alias": alias, "bootstrapServers": f"{alias.lower()}-kafka:9092"}}
                                     for alias in "ACD"[:n]]}


def rendered(values: dict[str, Any]) -> tuple[str, list[str]]:
    """The ConfigMap's mm2.properties and the container's args."""
    docs = [d for p, text in helm.Chart.load(str(CHART)).render(values, name="rk", namespace="r").items()
            if not p.endswith("NOTES.txt") for d in yaml.safe_load_all(text) if d]
    kinds = {d["kind"]: d for d in docs}
    return (kinds["ConfigMap"]["data"]["mm2.properties"],
            kinds["Deployment"]["spec"]["template"]["spec"]["containers"][0]["args"])


def policies(text: str) -> dict[str, AutoRestartPolicy]:
    """Each flow's connectors' auto-restart policy, as a herder with default worker settings applies it."""
    config = MirrorMakerConfig(parse_properties(text, "mm2.properties"), resolve_providers=False)
    worker = {k: v for k, v in WORKER_CONFIG.parse({"group.id": "g", "config.storage.topic": "c",
                                                     "offset.storage.topic": "o", "status.storage.topic": "s"}
                                                    ).items() if k in CONNECTOR_KEYS.keys}
    return {f"{flow}/{name}": AutoRestartPolicy.of(worker, config.connector_config(flow, name))
            for flow in config.flows for name in CONNECTORS}


def test_on_by_default_with_strimzis_defaults() -> None:
    text, _ = rendered(DEFAULTS)
    assert "auto.restart.enabled = true" in text and "auto.restart.max.backoff.minutes = 60" in text
    assert "auto.restart.max.restarts" not in text, "no limit by default, as Strimzi's maxRestarts"
    found = policies(text)
    assert found and set(found.values()) == {AutoRestartPolicy(True, None, 60)}, found


@pytest.mark.parametrize("mirrors", [1, 2, 3])
def test_values_reach_every_flows_connectors(mirrors: int) -> None:
    values = {**with_mirrors(mirrors), "autoRestart": {"enabled": True, "maxRestarts": 5, "maxBackoffMinutes": 10}}
    found = policies(rendered(values)[0])
    into_target = {key.split("/")[0] for key in found if key.split("/")[0].endswith("->B")}
    assert len(into_target) == mirrors, into_target  # the chart's process runs these (--clusters B)
    assert set(found.values()) == {AutoRestartPolicy(True, 5, 10)}
    off = policies(rendered({**values, "autoRestart": {"enabled": False}})[0])
    assert {p.enabled for p in off.values()} == {False}


@pytest.mark.parametrize("bad", [{"maxRestarts": 0}, {"maxBackoffMinutes": 0}, {"enabled": "yes"}, {"tries": 3}])
def test_schema_refuses_bad_values(bad: dict[str, Any]) -> None:
    with pytest.raises(helm.HelmError):
        helm.Chart.load(str(CHART)).render({**DEFAULTS, "autoRestart": bad}, name="rk")


def test_rendered_file_runs_with_the_charts_command_line(tmp_path: Path, broker: Broker, broker_b: Broker) -> None:
    """The rendered mm2.properties (plus the test bed's client settings) with the Deployment's args: the
    process takes the keys, and the flow's MirrorSourceConnector carries them."""
    port = free_port()
    text, args = rendered({"target": {"alias": "B", "bootstrapServers": broker_b.bootstrap, "config": {}},
                           "mirrors": [{"source": {"alias": "A", "bootstrapServers": broker.bootstrap},
                                        "topicsPattern": "nothing-here"}],
                           "service": {"ports": {"rest": port}}, "metrics": {"enabled": False},
                           "autoRestart": {"enabled": True, "maxRestarts": 4, "maxBackoffMinutes": 30}})
    path = tmp_path / "mm2.properties"
    path.write_text(text + mm2_settings({"A": broker, "B": broker_b}))
    assert args[0] == "mirror-maker" and args[1].endswith("/mm2.properties")
    log = open(tmp_path / "mm.log", "wb")  # noqa: SIM115 - owned by the child
    proc = subprocess.Popen([sys.executable, "-m", "replikafka", args[0], str(path), *args[2:]], cwd=REPO,
                            stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "POD_IP": "127.0.0.1"})
    try:
        url = f"http://127.0.0.1:{port}/A/B/connectors/MirrorSourceConnector/config"
        def source_config() -> dict[str, str] | None:
            assert proc.poll() is None, (tmp_path / "mm.log").read_text()[-2000:]  # named as the last error
            r = httpx.get(url, timeout=5)
            return r.json() if r.status_code == 200 else None
        expected = {"auto.restart.enabled": "true", "auto.restart.max.restarts": "4",
                    "auto.restart.max.backoff.minutes": "30"}
        # B is shared: until this process's herder leader writes the file's configs, the stored ones may be an
        # earlier test's flow A->B (MM2's herder rewrites them at start, as here).
        config = wait_for(lambda: (lambda c: c if c and {k: c.get(k) for k in CONNECTOR_KEYS.keys} == expected
                                   else None)(source_config()), 60, "the flow's MirrorSourceConnector with the keys")
        assert {k: config[k] for k in CONNECTOR_KEYS.keys} == expected
        status = wait_for(lambda: (lambda st: st if st.get("connector", {}).get("state") == "RUNNING" else None)(
            httpx.get(url.replace("/config", "/status"), timeout=5).json()), 30, "MirrorSourceConnector RUNNING")
        # Nothing should fail here; on a machine loaded enough for the connector to fail once (an admin call
        # timing out), the restart that follows is counted, and the connector runs again all the same.
        restarts = status["connector"].get("auto_restart", {"count": 0})["count"]
        assert restarts <= 4, status
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)
        log.close()
