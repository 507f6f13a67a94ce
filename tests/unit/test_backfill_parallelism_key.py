"""`backfill.parallelism` refuses what is not a count of ranges (negative, not an integer) on its key,
in the ConfigDef and in `replikafka backfill` (exit 2 naming the file and the key, before any broker is
contacted). The effect of valid values is tests/test_backfill_parallelism.py's."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from connectors.mirror.config import SOURCE


@pytest.mark.parametrize(("value", "reason"), [("-1", "Value must be at least 0"), ("two", "Not a number of type INT"),
                                               ("1.5", "Not a number of type INT"), ("", "Not a number of type INT")])
def test_configdef_refuses_on_the_key(value: str, reason: str) -> None:
    errors = SOURCE.validate_all({"backfill.parallelism": value})["backfill.parallelism"].errors
    assert errors == [f"Invalid value {value} for configuration backfill.parallelism: {reason}"]


@pytest.mark.parametrize("value", ["0", "1", "64"])
def test_configdef_accepts_counts(value: str) -> None:
    assert not SOURCE.validate_all({"backfill.parallelism": value})["backfill.parallelism"].errors


def test_backfill_command_refuses_naming_file_and_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from replikafka import backfill_cli

    nowhere = "127.0.0.1:1"  # never contacted: the config is refused first
    worker = tmp_path / "worker.properties"
    worker.write_text(f"bootstrap.servers={nowhere}\ngroup.id=g\nconfig.storage.topic=c\n"
                      "offset.storage.topic=o\nstatus.storage.topic=s\n")
    connector = tmp_path / "mm.properties"
    connector.write_text("name=mm\nconnector.class=org.apache.kafka.connect.mirror.MirrorSourceConnector\n"
                         f"source.cluster.alias=A\ntarget.cluster.alias=B\nsource.cluster.bootstrap.servers={nowhere}\n"
                         f"target.cluster.bootstrap.servers={nowhere}\nbackfill.parallelism=-2\n")
    args = argparse.Namespace(worker_properties=str(worker), connector_properties=str(connector), topic=[],
                              threshold=None)
    assert backfill_cli.run(args) == 2
    err = capsys.readouterr().err
    assert (f"error: {connector}: backfill.parallelism: Invalid value -2 for configuration backfill.parallelism: "
            "Value must be at least 0") in err, err
