"""The guides' runnable blocks, run as a reader runs them: a guide that stops working fails here.

Each guide gets two fresh local brokers (its topic names, consumer groups and internal topics are the plain
ones a reader types, so guides must not share a cluster) and its own working directory. The marker, the
placeholders and how blocks run are in tests/harness/doc_blocks.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pyconnect.testing.brokers import Broker, start_tansu
from tests.harness.doc_blocks import GuideRun, Substitution, extract

DOCS = Path(__file__).resolve().parent.parent / "docs"

#: Every guide with runnable blocks. A guide listed here with no marked block fails (a lost marker would
#: otherwise turn its test into a silent pass).
GUIDES = [
    "get-started.md",
    "guides/mm2-dedicated.md",
    "guides/mm2-connect-curl.md",
    "guides/failover.md",
    "runbooks/migrate-from-mm2.md",
]


@pytest.fixture
def brokers() -> Iterator[dict[str, Broker]]:
    started: dict[str, Broker] = {}
    try:
        for name in ("A", "B"):
            started[name] = start_tansu(f"docs-{name}")
        yield started
    finally:
        for broker in started.values():
            broker.stop()


@pytest.mark.parametrize("guide", GUIDES)
def test_guide_blocks_run(guide: str, brokers: dict[str, Broker], tmp_path: Path) -> None:
    blocks = extract(DOCS / guide)
    assert blocks, f"docs/{guide} has no `<!-- test -->` block"
    run = GuideRun(tmp_path, Substitution(brokers))
    try:
        run.run_all(blocks)
    finally:
        run.close()
        print("\n".join(f"{where}: {seconds:.1f} s" for where, seconds in run.timings))


def test_a_misplaced_marker_is_an_error(tmp_path: Path) -> None:
    """A marker that lost its fence would silently drop a block from the test: it names the line instead."""
    guide = tmp_path / "guide.md"
    guide.write_text("# Guide\n\n<!-- test -->\n\n```bash\necho hi\n```\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"guide.md:3: a test marker must be"):
        extract(guide)


def test_placeholders_map_to_this_runs_brokers_and_ports() -> None:
    a = Broker("127.0.0.1:1111", "tansu", quirks={"linger.ms": "0"})
    b = Broker("127.0.0.1:2222", "tansu", quirks={"linger.ms": "0"})
    sub = Substitution({"A": a, "B": b}, {"8083": 3333, "8084": 4444})
    assert sub.apply("A.bootstrap.servers = localhost:9092\ncurl localhost:8083/A/B/health\n") == (
        "A.bootstrap.servers = 127.0.0.1:1111\nA.linger.ms=0\nA.producer.linger.ms=0\nA.consumer.linger.ms=0\n"
        "curl localhost:3333/A/B/health\n")
    assert sub.apply("bootstrap.servers=localhost:9093\n") == "bootstrap.servers=127.0.0.1:2222\nlinger.ms=0\n"
