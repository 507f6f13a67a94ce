"""Logger levels per flow: a level set for one flow changes that flow's records only."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator

import pytest

from pyconnect.logging_context import ContextFilter, context_thread, scope
from pyconnect.runtime.logs.flow_loggers import LevelFilter, flow_levels, process_level
from pyconnect.runtime.results import LoggerLevel

NS = "flowtest"


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.lines: list[str] = []
        self.addFilter(ContextFilter())
        self.addFilter(LevelFilter())

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname} {getattr(record, 'connect_context', '')}{record.getMessage()}")


@pytest.fixture
def collect() -> Iterator[_Collect]:
    handler = _Collect()
    logger = logging.getLogger(NS)
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    logger.propagate = False
    yield handler
    logger.removeHandler(handler)
    for name in ("A->B", "C->B"):
        flow_levels(name).close()
    logger.setLevel(logging.NOTSET)


def _log_in(scope_name: str, name: str = NS + ".child") -> None:
    def body() -> None:
        logging.getLogger(name).debug("debug line")
        logging.getLogger(name).info("info line")

    with scope(scope_name):
        thread = context_thread(body, "t")  # the thread inherits the scope of the code that starts it
    thread.start()
    thread.join()


def test_a_level_set_for_one_flow_leaves_the_other_and_the_process_alone(collect: _Collect) -> None:
    a, c = flow_levels("A->B"), flow_levels("C->B")
    logging.getLogger(NS + ".child")
    assert a.set_level(NS, "DEBUG") == [NS, NS + ".child"]
    described = a.describe(NS + ".child")
    assert described is not None and described.level == "DEBUG"
    assert c.describe(NS + ".child") == LoggerLevel("INFO", None)
    assert process_level(NS + ".child") == logging.INFO
    for name in ("A->B", "C->B", ""):
        _log_in(name)
    assert collect.lines == ["DEBUG [A->B] debug line", "INFO [A->B] info line", "INFO [C->B] info line",
                             "INFO info line"]
    assert NS in a.all_levels() and c.all_levels()[NS].level == "INFO"


def test_closing_a_flow_gives_the_loggers_their_own_levels_back(collect: _Collect) -> None:
    flow_levels("A->B").set_level(NS, "TRACE")
    assert logging.getLogger(NS).level == 5, "lowered so that the flow's records are created"
    flow_levels("A->B").close()
    assert logging.getLogger(NS).level == logging.INFO
    _log_in("A->B")
    assert collect.lines == ["INFO [A->B] info line"]


def test_a_quieter_flow_level_drops_only_that_flows_records(collect: _Collect) -> None:
    flow_levels("C->B").set_level(NS, "ERROR")
    _log_in("A->B")
    _log_in("C->B")
    assert collect.lines == ["INFO [A->B] info line"]


def test_an_unknown_level_is_refused() -> None:
    with pytest.raises(KeyError):
        flow_levels("A->B").set_level(NS, "LOUD")
    flow_levels("A->B").close()


def test_threads_started_outside_a_scope_belong_to_the_process() -> None:
    seen: list[str] = []
    from pyconnect.logging_context import current_scope

    with scope("A->B"):
        plain = threading.Thread(target=lambda: seen.append(current_scope()))
    plain.start()
    plain.join()
    assert seen == [""]
