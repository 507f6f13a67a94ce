"""mm2.properties rules read without brokers: typo'd keys (warned, or refused with
`connector.config.unknown.keys = refuse`), advice that never repeats a typo as a key, and Java's dedicated-mode
rule for a MirrorCheckpointConnector the file turns off (MirrorCheckpointConfig.validate)."""

from __future__ import annotations

import logging

import pytest

from connectors.mirror.maker_config import Flow, MirrorMakerConfig
from pyconnect.config.properties import ConfigFileError, parse_properties
from replikafka.mirror_validation import check_flows

BASE = """clusters = A, B
A.bootstrap.servers = a:9092
B.bootstrap.servers = b:9092
A->B.enabled = true
"""
AB, BA = Flow("A", "B"), Flow("B", "A")
CHECKPOINT = "MirrorCheckpointConnector"


def checked(extra: str) -> MirrorMakerConfig:
    """The file BASE + `extra` read and checked as a dedicated start does (line 5 is extra's first line)."""
    config = MirrorMakerConfig(parse_properties(BASE + extra, "mm2.properties"))
    check_flows(config)
    return config


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_typos_warn_with_the_suggestion_and_advice_never_repeats_a_typo(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        checked("sync.group.offset.enabled = true\nA->B.topcis = x.*\nlinger.ms = 5\ntransforms.t.type = T\n"
                "mystery.key = 1\n")
    found = warnings(caplog)
    assert "mm2.properties:5: sync.group.offset.enabled: unknown key; did you mean sync.group.offsets.enabled? " \
           "(ignored)" in found, found
    assert any(w.startswith("mm2.properties:6: A->B.topcis: unknown key; did you mean topics?") for w in found)
    linger, transform, mystery = (next(w for w in found if f"'{k}'" in w)
                                  for k in ("linger.ms", "transforms.t.type", "mystery.key"))
    assert linger.endswith("set it per cluster as <alias>.linger.ms"), linger
    assert transform.endswith("set it per flow as <source>-><target>.transforms.t.type"), transform
    assert "set it per" not in mystery, mystery
    for typo in ("sync.group.offset.enabled", "topcis", "mystery.key"):
        assert not any(f".{typo}" in w and "did you mean" not in w for w in found), (typo, found)
        assert not any(f"<alias>.{typo}" in w or f"<target>.{typo}" in w for w in found), (typo, found)


@pytest.mark.parametrize(("strict", "typo", "line", "key", "suggestion"), [
    ("connector.config.unknown.keys = refuse", "A->B.topcis = x.*", 6, "A->B.topcis", "topics"),
    ("B.connector.config.unknown.keys = REFUSE ", "sync.group.offset.enabled = true", 6,
     "sync.group.offset.enabled", "sync.group.offsets.enabled"),
    ("connector.config.unknown.keys = refuse", "A->B.MirrorSourceConnector.topcis = x.*", 6,
     "A->B.MirrorSourceConnector.topcis", "topics"),
])
def test_refuse_makes_a_typo_stop_the_start(strict: str, typo: str, line: int, key: str, suggestion: str) -> None:
    with pytest.raises(ConfigFileError) as err:
        checked(f"{strict}\n{typo}\n")
    assert str(err.value) == (f"mm2.properties:{line}: {key}: unknown key; did you mean {suggestion}? "
                              "(refused: connector.config.unknown.keys = refuse)")


def test_the_setting_reaches_every_herder_below_its_targets_own() -> None:
    config = checked("connector.config.unknown.keys = refuse\nA.connector.config.unknown.keys = warn\n")
    assert config.worker_config(AB)["connector.config.unknown.keys"] == "refuse"
    assert config.worker_config(BA)["connector.config.unknown.keys"] == "warn"
    assert config.refuses_unknown_keys(AB) and not config.refuses_unknown_keys(BA)
    with pytest.raises(ConfigFileError, match=r"mm2.properties:5: connector.config.unknown.keys: Invalid value "):
        checked("connector.config.unknown.keys = refused\n")


@pytest.mark.kafka("MirrorCheckpointConfigTest.testValidateIfConnectorEnabled")
@pytest.mark.parametrize(("extra", "key", "why"), [
    ("emit.offset-syncs.enabled = false\n", "emit.offset-syncs.enabled",
     "can't run with emit.offset-syncs.enabled set to false"),
    ("A->B.emit.checkpoints.enabled = false\nsync.group.offsets.enabled = false\n", "A->B.emit.checkpoints.enabled",
     "can't run with both emit.checkpoints.enabled and sync.group.offsets.enabled set to false"),
])
def test_a_checkpoint_connector_the_file_turns_off_is_not_started(
        extra: str, key: str, why: str, caplog: pytest.LogCaptureFixture) -> None:
    """As Java's dedicated MirrorMaker: the herder refuses the invalid config, the flow's others run."""
    with caplog.at_level(logging.WARNING):
        config = checked(extra)
    assert list(config.not_started) == [AB], "B->A replicates nothing: its checkpoint connector is not checked"
    reason = config.not_started[AB][CHECKPOINT]
    assert why in reason and f"(mm2.properties:5: {key})" in reason, reason
    (warning,) = [w for w in warnings(caplog) if "not started" in w]
    assert warning.startswith(f"{CHECKPOINT} of A->B is not started: {CHECKPOINT} {why}"), warning
    assert config.not_started_notes(AB) == (f"{CHECKPOINT} is not started: {reason}.",)
    assert config.not_started_notes(BA) == ()


def test_an_invalid_value_still_stops_the_start() -> None:
    with pytest.raises(ConfigFileError, match=r"mm2.properties:6: emit.checkpoints.interval.seconds: Invalid value"):
        checked("emit.offset-syncs.enabled = false\nemit.checkpoints.interval.seconds = soon\n")
    with pytest.raises(ConfigFileError, match=r"mm2.properties:5: A->B.emit.offset-syncs.enabled: Invalid value"):
        checked("A->B.emit.offset-syncs.enabled = flase\n")


def test_offset_sync_settings_without_offset_syncs_still_stop_the_start() -> None:
    """Not a connector the file turns off but contradictory settings (Java's MirrorSourceConnector.validate
    refuses them too): the start stops, naming the key that disables the syncs."""
    with pytest.raises(ConfigFileError, match=r"mm2.properties:5: emit.offset-syncs.enabled: Offset syncs are "
                                              r"disabled, but offset-syncs.topic.replication.factor is set"):
        checked("emit.offset-syncs.enabled = false\noffset-syncs.topic.replication.factor = 1\n")
