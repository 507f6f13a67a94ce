"""`replikafka offsets translate --group-regex` (KIP-1239's batch form): the command line, before any cluster."""

from __future__ import annotations

import pytest

from replikafka.cli import main
from replikafka.reference.cli_help import cli_page

# Nothing listens on port 1: a command that reached for the cluster would fail differently (and slowly).
BASE = ["offsets", "translate", "--target-bootstrap", "127.0.0.1:1", "--source-alias", "A"]


def test_group_and_group_regex_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as both:
        main([*BASE, "--group", "orders", "--group-regex", "orders-.*"])
    assert both.value.code == 2
    assert "argument --group-regex: not allowed with argument --group" in capsys.readouterr().err
    with pytest.raises(SystemExit) as neither:
        main(BASE)
    assert neither.value.code == 2
    assert "one of the arguments --group --group-regex is required" in capsys.readouterr().err


def test_an_invalid_regex_is_one_sentence_and_no_cluster_call(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*BASE, "--group-regex", "orders-(", "--format", "json"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: --group-regex 'orders-(' is not a valid regular expression: ")
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_the_commands_reference_shows_the_option() -> None:
    page = cli_page()
    assert "## `replikafka offsets translate`" in page
    assert "(--group GROUP | --group-regex GROUP_REGEX)" in page
