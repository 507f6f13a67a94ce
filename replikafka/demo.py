"""`pyconnect demo`: MirrorMaker 2 between two embedded local brokers, with live progress.

Starts two Kafka-protocol brokers on loopback (A and B), runs the mirror maker from
examples/demo.properties (A -> B for `orders` and `payments`), produces sample traffic on A and
shows, per topic, records produced, replicated (committed by the source connector), rate and lag.
Stops cleanly on Ctrl-C or after `--duration` seconds.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import TextIO

import httpx

from pyconnect.config.properties import parse_properties
from pyconnect.kafka.admin import Admin, TopicSpec
from pyconnect.kafka.clients import new_producer, produce
from pyconnect.kafka.config import to_librdkafka
from pyconnect.testing.brokers import Broker, free_port, start_broker

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "demo.properties"
TOPICS = ("orders", "payments")
RATE = 400  # records/s per topic


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


def run_demo(duration: float = 0.0, out: TextIO = sys.stdout) -> int:
    from connectors.mirror.maker_config import MirrorMakerConfig
    from replikafka.mirror_maker import MirrorMaker

    stop = threading.Event()

    def on_signal(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    print("starting two embedded Kafka-protocol brokers (A and B) on loopback ...", file=out)
    a, b = start_broker("A"), start_broker("B")
    maker = None
    traffic = None
    try:
        os.environ["DEMO_A_BOOTSTRAP"], os.environ["DEMO_B_BOOTSTRAP"] = a.bootstrap, b.bootstrap
        # The local test brokers need their client settings (pyconnect/testing/brokers.py).
        quirks = "".join(f"{alias}.{k}={v}\n" for alias, broker in (("A", a), ("B", b))
                         for k, v in broker.client_overrides.items())
        text = EXAMPLE.read_text() + quirks
        admin = Admin({"bootstrap.servers": a.bootstrap})
        for topic in TOPICS:
            admin.create_topic(TopicSpec(topic, 3, 1, {}))
        url = f"http://127.0.0.1:{free_port()}"
        maker = MirrorMaker(MirrorMakerConfig(parse_properties(text, str(EXAMPLE))), url)
        maker.start()
        produced = dict.fromkeys(TOPICS, 0)
        traffic = threading.Thread(target=_traffic, args=(a, stop, produced), daemon=True)
        traffic.start()
        print(f"mirror maker running {EXAMPLE.name}: A ({a.bootstrap}) -> B ({b.bootstrap})", file=out)
        print(f"REST API: {url}/A/B/connectors   e.g.  curl -s {url}/A/B/connectors/MirrorSourceConnector/status",
              file=out)
        started, last, last_t = time.monotonic(), dict.fromkeys(TOPICS, 0), time.monotonic()
        while not stop.wait(1.0):
            now = time.monotonic()
            done = _replicated(url)
            cells = []
            for topic in TOPICS:
                rate = (done[topic] - last[topic]) / (now - last_t)
                lag = produced[topic] - done[topic]
                cells.append(f"{topic}: {done[topic]:>7,} replicated {rate:6.0f}/s lag {lag:>5,}")
            last, last_t = done, now
            print(f"\r[{now - started:5.0f}s] " + "  |  ".join(cells), end="", file=out, flush=True)
            if duration and now - started >= duration:
                break
    finally:
        stop.set()
        print("\nshutting down ...", file=out)
        if traffic is not None:
            traffic.join(10)
        if maker is not None:
            maker.stop()
        a.stop()
        b.stop()
    print("demo finished cleanly", file=out)
    return 0
