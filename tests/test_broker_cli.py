"""`replikafka local-broker`: a local broker to try things, with the client settings it needs.

It starts, a produce/consume round trip works against the printed address with the printed settings (and
ListOffsets then reports the exact end, what the settings are for), SIGINT stops it and leaves no process; a
taken port is refused at once, naming the address; and the printed settings are in no user default.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from pyconnect.config.properties import parse_properties
from pyconnect.config.worker import WorkerConfig, load_worker_config
from pyconnect.testing.brokers import TANSU_CLIENT_OVERRIDES, free_port
from tests.harness.kafka_io import create_topic
from tests.harness.processes import alive
from tests.harness.workers import REPO

SETTING = re.compile(r"^    ([a-z.]+)=(\S+)$")


def _sections(lines: list[str]) -> list[dict[str, str]]:
    """The printed settings blocks, in order: replikafka's files, librdkafka producers, librdkafka consumers."""
    blocks: list[dict[str, str]] = []
    for line in (x.rstrip("\n") for x in lines):
        if line.startswith("  ") and line.endswith(":"):
            blocks.append({})
        elif (m := SETTING.match(line)) and blocks:
            blocks[-1][m.group(1)] = m.group(2)
    return blocks


class _Output:
    """The command's stdout, collected by a thread so that the test can poll it under a deadline."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        assert proc.stdout is not None
        stream = proc.stdout
        self.thread = threading.Thread(target=lambda: self.lines.extend(iter(stream.readline, "")), daemon=True)
        self.thread.start()

    def wait_for(self, line: str, proc: subprocess.Popen[str], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while line not in [x.rstrip("\n") for x in self.lines]:
            assert proc.poll() is None, f"the command exited ({proc.returncode}): {''.join(self.lines)}"
            assert time.monotonic() < deadline, f"no {line!r} within {timeout} s: {''.join(self.lines)}"
            time.sleep(0.05)  # poll interval: the loop ends at its deadline


def _worker(bootstrap: str, extra: dict[str, str] | None = None) -> WorkerConfig:
    """A user's minimal worker.properties (Apache's sample names) plus `extra`."""
    props = {"bootstrap.servers": bootstrap, "group.id": "connect-cluster", "config.storage.topic": "connect-configs",
             "offset.storage.topic": "connect-offsets", "status.storage.topic": "connect-status", **(extra or {})}
    return load_worker_config(parse_properties("".join(f"{k}={v}\n" for k, v in props.items()), "worker.properties"))


def _start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "replikafka.broker_cli", *args], cwd=REPO, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def _brokers_listening_on(port: int) -> list[int]:
    """Pids of Tansu processes whose command line names `port` (the broker runs in a session of its own)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if "tansu" in cmdline and f"127.0.0.1:{port}\0" in cmdline:
                found.append(int(entry.name))
    return found


def _round_trip(bootstrap: str, producing: dict[str, str], consuming: dict[str, str], topic: str,
                count: int) -> tuple[list[bytes], int]:
    """Produces `count` records in one burst with the printed producer settings; returns the values read back
    with the consumer settings (assign(), as MirrorMaker 2 reads) and the end offsets ListOffsets reports."""
    create_topic(bootstrap, topic, 3)
    producer = Producer({"bootstrap.servers": bootstrap, **producing})
    for i in range(count):
        producer.produce(topic, b"v%d" % i, key=b"k%d" % i, partition=i % 3)
    assert producer.flush(30) == 0
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"try-{topic}", "enable.auto.commit": False,
                         **consuming})
    try:
        consumer.assign([TopicPartition(topic, p, 0) for p in range(3)])
        values: list[bytes] = []
        deadline = time.monotonic() + 30
        while len(values) < count and time.monotonic() < deadline:
            values += [m.value() for m in consumer.consume(1000, 0.2) if m.error() is None]
        ends = sum(consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10, cached=False)[1]
                   for p in range(3))
    finally:
        consumer.close()
    return values, ends


def test_local_broker_round_trip_with_printed_settings_then_sigint_stops_it() -> None:
    port = free_port()
    started = time.monotonic()
    proc = _start("--port", str(port), "--cluster-id", "try")
    out = _Output(proc)
    try:
        out.wait_for("Ctrl-C stops it.", proc, 20)
        print(f"local-broker ready in {time.monotonic() - started:.1f} s")
        text = "".join(out.lines)
        bootstrap = re.search(r"^bootstrap\.servers=(\S+)$", text, re.M)
        assert bootstrap and bootstrap.group(1) == f"127.0.0.1:{port}", text
        files, producing, consuming, _group = _sections(out.lines)
        assert files == TANSU_CLIENT_OVERRIDES, text
        # The two forms agree: a worker given the file form hands its clients the librdkafka form.
        worker = _worker(bootstrap.group(1), files)
        assert worker.task_client_config("producer") == {"bootstrap.servers": bootstrap.group(1), **producing}
        assert worker.task_client_config("consumer") == {"bootstrap.servers": bootstrap.group(1), **consuming}
        values, ends = _round_trip(bootstrap.group(1), producing, consuming, "try-out", 300)
        assert sorted(values) == sorted(b"v%d" % i for i in range(300))
        assert ends == 300, "with the printed settings ListOffsets(latest) reports the exact end"
        brokers = _brokers_listening_on(port)
        assert len(brokers) == 1, brokers
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the terminal's foreground group (the broker has its own)
        assert proc.wait(15) == 0, proc.stderr.read() if proc.stderr else ""
        deadline = time.monotonic() + 10
        while alive(brokers[0]):
            assert time.monotonic() < deadline, "the broker outlived the command"
            time.sleep(0.05)  # poll interval: the loop ends at its deadline
        out.thread.join(5)
        assert out.lines[-1].rstrip("\n") == "local broker stopped"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        for pid in _brokers_listening_on(port):
            os.kill(pid, signal.SIGKILL)


def test_a_taken_port_is_refused_at_once_naming_the_address() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        started = time.monotonic()
        proc = _start("--port", str(port))
        _, err = proc.communicate(timeout=20)
        elapsed = time.monotonic() - started
    assert proc.returncode == 1, err
    assert f"127.0.0.1:{port}" in err and "already in use" in err, err
    assert "Traceback" not in err, err
    assert elapsed < 10, elapsed
    assert _brokers_listening_on(port) == [], "no broker was started"


@pytest.mark.parametrize("argv", [["--port", "70000"], ["--port", "x"]])
def test_a_bad_port_is_a_usage_error(argv: list[str]) -> None:
    proc = _start(*argv)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 2 and "--port" in err and "Traceback" not in err, err


def test_the_printed_settings_are_in_no_user_default() -> None:
    """The Tansu workarounds reach users only through the command and docs/brokers.md: a worker with a
    user's minimal file gets none of them, and no example file or chart value sets them."""
    worker = _worker("kafka:9092")
    clients = [worker.client_config(role) for role in ("producer", "consumer", "admin")]
    clients += [worker.task_client_config(role) for role in ("producer", "consumer")]
    for conf in clients:
        assert conf.get("batch.num.messages") != "1" and conf.get("linger.ms") != "0", conf
        assert conf.get("fetch.wait.max.ms") != "50", conf
    shipped = [*REPO.glob("examples/*.properties"), *REPO.glob("helm/**/values*.yaml"), *REPO.glob("helm/**/*.tpl"),
               *REPO.glob("helm/**/templates/*.yaml")]
    assert len(shipped) > 5, shipped
    for path in shipped:
        text = path.read_text()
        for key in TANSU_CLIENT_OVERRIDES:
            assert key not in text, f"{path.relative_to(REPO)} sets {key}"


def test_add_parser_gives_replikafka_the_local_broker_subcommand() -> None:
    """What replikafka/cli.py adds: `replikafka local-broker [--port N] [--cluster-id NAME]`."""
    import argparse

    from replikafka.broker_cli import DEFAULT_PORT, add_parser

    parser = argparse.ArgumentParser(prog="replikafka")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["local-broker", "--port", "0", "--cluster-id", "try"])
    assert (args.command, args.port, args.cluster_id) == ("local-broker", 0, "try")
    assert parser.parse_args(["local-broker"]).port == DEFAULT_PORT
