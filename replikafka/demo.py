"""`replikafka demo`: MirrorMaker 2 between two embedded local brokers, with live progress.

Starts two Kafka-protocol brokers on loopback (A and B), runs the mirror maker from
examples/demo.properties (A -> B for `orders` and `payments`), produces sample traffic on A and
shows one live table: per topic, records produced, replicated (committed by the source connector),
rate and lag, with the console's URL. The log goes to a file whose path is printed first.
Ctrl-C, SIGTERM, SIGHUP, a closed output pipe or `--duration` seconds stop everything it started.
Killed with SIGKILL it cannot stop anything, so its brokers are started to die with it
(pyconnect.testing.parent_death): nothing it started is left running.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TextIO

import httpx

from connectors.mirror.maker_config import MirrorMakerConfig
from pyconnect.config.properties import parse_properties
from pyconnect.kafka.admin import Admin, TopicSpec
from pyconnect.kafka.clients import new_producer, produce
from pyconnect.kafka.config import to_librdkafka
from pyconnect.testing.brokers import Broker, free_port, start_tansu
from replikafka.demo_terminal import DemoTerminal, Row
from replikafka.mirror_maker import MirrorMaker

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "demo.properties"
TOPICS = ("orders", "payments")
RATE = 400  # records/s per topic
log = logging.getLogger("pyconnect.demo")


def _traffic(broker: Broker, stop: threading.Event, produced: dict[str, int]) -> None:
    producer = new_producer(to_librdkafka({"bootstrap.servers": broker.bootstrap, **broker.client_overrides},
                                          "producer"))
    started, n = time.monotonic(), 0
    while not stop.is_set():
        due = int((time.monotonic() - started) * RATE)
        for i in range(n, due):
            for topic in TOPICS:
                produce(producer, topic, f'{{"id": {i}, "topic": "{topic}"}}'.encode(), key=b"%d" % i)
                produced[topic] += 1
        n = max(n, due)
        producer.poll(0.05)
    producer.flush(10)


def _replicated(url: str) -> dict[str, int]:
    r = httpx.get(f"{url}/A/B/connectors/MirrorSourceConnector/offsets", timeout=10)
    out = dict.fromkeys(TOPICS, 0)
    if r.status_code == 200:
        for entry in r.json()["offsets"]:
            out[entry["partition"]["topic"]] = out.get(entry["partition"]["topic"], 0) + entry["offset"]["offset"] + 1
    return out


def _stop_on_signals(stop: threading.Event) -> None:
    def on_signal(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    # SIGHUP: the terminal went away. A second Ctrl-C during the shutdown only sets the event again.
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, on_signal)


def _log_file() -> str:
    folder = tempfile.mkdtemp(prefix="replikafka-demo-")
    return os.path.join(folder, "demo.log")


class _Demo:
    """What the demo started, so that everything it started is stopped, whatever stops it."""

    def __init__(self, stop: threading.Event) -> None:
        self.stop = stop
        self.brokers: list[Broker] = []
        self.maker: MirrorMaker | None = None
        self.traffic: threading.Thread | None = None
        self.produced = dict.fromkeys(TOPICS, 0)

    def start(self) -> str:
        """Brokers, topics, the mirror maker and the traffic; returns the mirror maker's REST URL."""
        # Embedded Tansu whatever the test run's broker kind: the demo is what a user runs with no Java.
        a, b = start_tansu("A"), start_tansu("B")
        self.brokers = [a, b]
        os.environ["DEMO_A_BOOTSTRAP"], os.environ["DEMO_B_BOOTSTRAP"] = a.bootstrap, b.bootstrap
        # The local test brokers need their client settings (pyconnect/testing/brokers.py).
        quirks = "".join(f"{alias}.{k}={v}\n" for alias, broker in (("A", a), ("B", b))
                         for k, v in broker.client_overrides.items())
        admin = Admin({"bootstrap.servers": a.bootstrap})
        for topic in TOPICS:
            admin.create_topic(TopicSpec(topic, 3, 1, {}))
        url = f"http://127.0.0.1:{free_port()}"
        self.maker = MirrorMaker(MirrorMakerConfig(parse_properties(EXAMPLE.read_text() + quirks, str(EXAMPLE))), url)
        self.maker.start()
        self.traffic = threading.Thread(target=_traffic, args=(a, self.stop, self.produced), daemon=True)
        self.traffic.start()
        return url

    def close(self) -> None:
        """Stops the traffic, the mirror maker and the brokers; a failure in one step skips no later one."""
        self.stop.set()
        try:
            if self.traffic is not None:
                self.traffic.join(10)
            if self.maker is not None:
                self.maker.stop()
        except Exception:  # noqa: BLE001 - logged; the brokers must be stopped whatever happened
            log.exception("stopping the mirror maker failed")
        finally:
            for broker in self.brokers:
                broker.stop()


def _watch(url: str, demo: _Demo, term: DemoTerminal, duration: float) -> None:
    started = last_t = time.monotonic()
    last: dict[str, int] | None = None  # the first reading gives no rate
    rows: list[Row] = []
    while not demo.stop.wait(1.0):
        now = time.monotonic()
        try:
            done = _replicated(url)
        except httpx.HTTPError as exc:
            log.warning("reading the connector's offsets failed: %s", exc)
            continue
        rows = [Row("A -> B", topic, demo.produced[topic], done[topic],
                    0.0 if last is None else (done[topic] - last[topic]) / (now - last_t)) for topic in TOPICS]
        last, last_t = done, now
        term.table(rows, now - started)
        if duration and now - started >= duration:
            break
    if rows:
        term.table(rows, time.monotonic() - started, final=True)


def run_demo(duration: float = 0.0, configure_logging: Callable[[str], None] | None = None,
             out: TextIO = sys.stdout) -> int:
    """Runs the demo until `duration` seconds passed (0: until a signal or a closed output)."""
    stop = threading.Event()
    _stop_on_signals(stop)
    term = DemoTerminal(out, stop)
    log_path = _log_file()
    if configure_logging is not None:
        configure_logging(log_path)
    term.say(f"log: {log_path}")
    term.say("starting two embedded Kafka-protocol brokers (A and B) on loopback ...")
    demo = _Demo(stop)
    try:
        url = demo.start()
        a, b = demo.brokers
        term.say(f"mirror maker running {EXAMPLE.name}: A ({a.bootstrap}) -> B ({b.bootstrap})")
        term.say(f"console: {url}/A/B/ui")
        term.say(f"REST API: {url}/A/B/connectors   e.g.  curl -s {url}/A/B/connectors/MirrorSourceConnector/status")
        _watch(url, demo, term, duration)
    finally:
        term.say("shutting down ...")
        demo.close()
    term.say("demo finished cleanly")
    return 0
