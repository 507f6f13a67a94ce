"""Command line: `replikafka distributed worker.properties`, `replikafka standalone worker.properties
connector.properties ...`, `replikafka mirror-maker mm2.properties` and the other subcommands.

The commands of before the rename stay as aliases: `pyconnect <subcommand>` is `replikafka <subcommand>` (the
same parser, only its name differs), and `pyconnect-distributed`, `pyconnect-standalone` and
`pyconnect-mirror-maker` take the arguments of the subcommand of the same name, shaped like Kafka's
connect-distributed.sh, connect-standalone.sh and connect-mirror-maker.sh. Every one of them gives the same exit
codes for the same input."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from types import FrameType

from pyconnect.api.config import ConfigException
from pyconnect.config.properties import ConfigFileError, load_properties
from pyconnect.config.worker import load_worker_config
from pyconnect.environment import env_value
from pyconnect.kafka.clients import KafkaClientError
from pyconnect.kafka.native_memory import limit_arenas
from pyconnect.runtime.cluster.worker_identity import WorkerIdInUse
from pyconnect.runtime.worker import Worker
from replikafka import backfill_cli, broker_cli, offsets_cli
from replikafka.starting_answers import mirror_starting, worker_starting
from rest.listener import ListenerBindError, bind_listeners

log = logging.getLogger("pyconnect")


def setup_logging(level: str = "INFO", fmt: str | None = None, log_file: str | None = None) -> None:
    """The process's logging: `fmt`, else `REPLIKAFKA_LOG_FORMAT` (or the older `PYCONNECT_LOG_FORMAT`), else
    text; to `log_file` when given, else stderr."""
    from pyconnect.logging_context import configure
    from pyconnect.runtime.logs.flow_loggers import LevelFilter

    # LevelFilter: a level set through one flow of a dedicated process applies to that flow's records.
    configure(level, fmt or env_value("LOG_FORMAT", "text"), (LevelFilter(),), log_file)
    logging.getLogger("uvicorn.access").setLevel(logging.WARNING)
    # httpx logs every request at INFO (the workers forward REST calls to the leader with it).
    logging.getLogger("httpx").setLevel(logging.WARNING)
    # librdkafka reports every broker disconnect at INFO/NOTICE; they are retried, keep them at DEBUG.
    logging.getLogger("librdkafka").setLevel(max(logging.WARNING, logging.getLogger().level))


SIGNAL_POLL = 0.5  # seconds: how late a signal delivered to another thread is seen (SignalStop.wait)


class SignalStop:
    """Set by SIGTERM or SIGINT from its creation on, instead of the process ending at once."""

    def __init__(self) -> None:
        self._event = threading.Event()
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        log.info("received signal %d, shutting down", signum)
        self._event.set()

    def wait(self) -> None:
        """Blocks until a signal came: in slices of SIGNAL_POLL, never in one untimed wait. CPython runs a
        signal's handler in the main thread only, between bytecodes, and the kernel may deliver a SIGTERM sent
        to the process to any of its threads that does not block it (the REST server's, the Kafka logs'
        pollers'). Then the signal is only flagged, and a main thread asleep in an untimed Event.wait never
        looks at the flag: a dedicated process ignored two SIGTERMs for 10 minutes that way."""
        while not self._event.wait(SIGNAL_POLL):
            pass


def stop_on_signal() -> SignalStop:
    """What SIGTERM/SIGINT sets from now on (instead of ending the process at once)."""
    return SignalStop()


def startup_error(path: str, exc: Exception) -> int:
    """One line on stderr and the exit code: 2 for a bad file, 1 when Kafka cannot be reached or the REST
    listener cannot be bound."""
    if isinstance(exc, ConfigFileError):
        print(f"error: {exc}", file=sys.stderr)  # already names file, line and key
        return 2
    if isinstance(exc, ListenerBindError | WorkerIdInUse):  # names the address or the id; the file is not at fault
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"error: {path}: {exc}", file=sys.stderr)
    return 1 if isinstance(exc, KafkaClientError) else 2


def run_mirror_maker(path: str, clusters: list[str] | None, listeners: str | None = None,
                     check: bool = False) -> int:
    """Dedicated MirrorMaker 2: one herder per flow of the file, REST per flow under /{source}/{target}.
    The flows' existing state (ours or Java MM2's) must belong to the file before anything starts;
    `check` prints where each flow will resume instead of starting."""
    from connectors.mirror.maker_config import load
    from replikafka.mirror_check import check_report
    from replikafka.mirror_maker import MirrorMaker
    from replikafka.mirror_state import check_states, read_flow_state
    from replikafka.mirror_validation import check_flows

    stop = stop_on_signal()  # from here a SIGTERM stops the process gracefully, also while it starts
    try:
        config = load(path, clusters)
        check_flows(config)
        if check:
            print(check_report(config))
            return 0
        maker = MirrorMaker(config, listeners)  # binds the REST listener before anything reads or writes Kafka
    except (ConfigFileError, ConfigException, KafkaClientError, ListenerBindError, ValueError, TimeoutError) as exc:
        return startup_error(path, exc)
    # Until the herders start, the listeners answer 503 saying what the process waits for (rest.starting).
    starting = mirror_starting(maker.listener, config, next(iter(maker.configs.values())))
    try:
        for warning in check_states(config, [read_flow_state(config, flow) for flow in config.flows]):
            log.warning("%s", warning)
        maker.build()  # the herders: their internal topics are created here, once the state is known to fit
    except (ConfigFileError, ConfigException, KafkaClientError, ListenerBindError, ValueError, TimeoutError) as exc:
        starting.stop()
        maker.close()
        return startup_error(path, exc)
    starting.stop()
    try:
        maker.start()
    except (ListenerBindError, WorkerIdInUse) as exc:
        maker.stop()  # the flows that did start leave their clusters
        return startup_error(path, exc)
    stop.wait()
    maker.stop()
    return 0


def run_distributed(path: str) -> int:
    """Start one worker and serve REST until SIGTERM/SIGINT; return the exit code. The REST listener is bound
    before the worker is created: a taken port stops the start before anything is written to the cluster."""
    from rest.server import RestServers

    stop = stop_on_signal()  # from here a SIGTERM stops the worker gracefully, also while it starts
    try:
        config = load_worker_config(load_properties(path))
        listener = bind_listeners(config.listeners, config.admin_listeners or [])
    except (ConfigFileError, ListenerBindError, ValueError) as exc:
        return startup_error(path, exc)
    # Until the REST API serves, the listeners answer 503 saying what the worker waits for (rest.starting).
    starting = worker_starting(listener, config)
    try:
        worker = Worker(config)
        rest = RestServers(worker, listener)
    except (KafkaClientError, ListenerBindError, ValueError) as exc:
        starting.stop()
        listener.close()
        return startup_error(path, exc)
    try:
        starting.phase(f"reading the internal topics and joining group {config.group_id}")
        worker.start()
        starting.stop()
        rest.start()
    except (ListenerBindError, WorkerIdInUse) as exc:
        starting.stop()
        worker.stop()  # a refused worker has started nothing but its membership reader
        listener.close()
        return startup_error(path, exc)
    log.info("REST API listening on %s (advertised %s)", listener.urls, config.advertised_url)
    stop.wait()
    rest.stop()
    worker.stop()
    return 0


def _standalone_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("worker_properties", help="the worker's configuration")
    parser.add_argument("connector_files", nargs="*", metavar="connector_file",
                        help="connector configs: .properties, or JSON (a config map or a POST /connectors body)")


def run_standalone(worker_path: str, connector_paths: list[str]) -> int:
    """Start a standalone worker with the given connectors and serve REST until SIGTERM/SIGINT."""
    from replikafka.standalone import run_standalone as run

    return run(worker_path, connector_paths)


def distribution_version() -> str:
    """The installed distribution's version (package metadata), or the source tree's when not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("replikafka")
    except PackageNotFoundError:  # run from a source checkout on PYTHONPATH without `pip install`
        import pyconnect

        return pyconnect.__version__


def add_version(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """`--version`: print `replikafka <version>` and exit 0."""
    parser.add_argument("--version", action="version", version=f"replikafka {distribution_version()}")
    return parser


def _distributed_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("worker_properties", help="the worker's configuration")


def _mirror_maker_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("mm2_properties", help="the MirrorMaker 2 configuration (clusters, flows)")
    parser.add_argument("--clusters", nargs="+", help="only flows whose target is one of these aliases")
    parser.add_argument("--listeners", help="REST listener of this process (overrides the file's `listeners`)")
    parser.add_argument("--check", action="store_true", help="print where each flow will resume (per partition) "
                                                             "and the newest checkpoints, start nothing")


DESCRIPTION = "Kafka Connect and MirrorMaker 2 compatible replication for Apache Kafka."
ALIASES = ("pyconnect is an alias of replikafka; pyconnect-distributed, pyconnect-standalone and "
           "pyconnect-mirror-maker are aliases of replikafka's subcommands of the same names.")


def build_parser(prog: str = "replikafka") -> argparse.ArgumentParser:
    """The command line: global options, then one subcommand. `prog` is the name usage lines show."""
    parser = add_version(argparse.ArgumentParser(prog=prog, description=DESCRIPTION, epilog=ALIASES))
    parser.add_argument("--log-level", default="INFO", help="root log level (default INFO)")
    parser.add_argument("--log-format", choices=("text", "json"),
                        help="default: $REPLIKAFKA_LOG_FORMAT (or the older $PYCONNECT_LOG_FORMAT), else text")
    sub = parser.add_subparsers(dest="command", required=True, metavar="command")
    _distributed_arguments(sub.add_parser("distributed", help="run a distributed worker (like connect-distributed.sh)"))
    _standalone_arguments(sub.add_parser("standalone", help="run a standalone worker (like connect-standalone.sh)"))
    mm = sub.add_parser("mirror-maker", help="run MirrorMaker 2 from mm2.properties (dedicated mode)",
                        description="MirrorMaker 2 in dedicated mode, like connect-mirror-maker.sh.")
    _mirror_maker_arguments(mm)
    demo = sub.add_parser("demo", help="run the demo on embedded local brokers")
    demo.add_argument("--duration", type=float, default=0, help="seconds to run (0: until Ctrl-C)")
    offsets_cli.add_parser(sub)
    backfill_cli.add_parser(sub)
    broker_cli.add_parser(sub)
    for command in sub.choices.values():  # `replikafka <command> --version` too
        add_version(command)
    return parser


def main(argv: Sequence[str] | None = None, prog: str = "replikafka") -> int:
    """`replikafka [--log-level L] [--log-format F] <command> ...`; returns the exit code."""
    args = build_parser(prog).parse_args(argv)
    limit_arenas()  # before any Kafka client starts its threads (pyconnect/kafka/native_memory.py)
    if args.command == "demo":
        from replikafka.demo import run_demo

        # The demo's terminal shows its live table only: the log goes to a file it names.
        return run_demo(args.duration, lambda path: setup_logging(args.log_level, args.log_format, path))
    setup_logging(args.log_level, args.log_format)
    if args.command == "distributed":
        return run_distributed(args.worker_properties)
    if args.command == "standalone":
        return run_standalone(args.worker_properties, args.connector_files)
    if args.command == "mirror-maker":
        return run_mirror_maker(args.mm2_properties, args.clusters, args.listeners, args.check)
    if args.command == "offsets":
        return offsets_cli.run(args)
    if args.command == "backfill":
        return backfill_cli.run(args)
    if args.command == "local-broker":
        return broker_cli.run(args)
    return 2


def pyconnect_main(argv: Sequence[str] | None = None) -> int:
    """`pyconnect ...`: the alias of `replikafka ...` from before the rename."""
    return main(argv, "pyconnect")


def _alias_parser(command: str, add_arguments: Callable[[argparse.ArgumentParser], None]) -> argparse.ArgumentParser:
    """The parser of the `pyconnect-<command>` alias: the subcommand's arguments, and `--version`."""
    parser = add_version(argparse.ArgumentParser(prog=f"pyconnect-{command}",
                                                 description=f"An alias of `replikafka {command}`."))
    add_arguments(parser)
    return parser


def mirror_maker_main(argv: Sequence[str] | None = None) -> int:
    """`pyconnect-mirror-maker mm2.properties [--clusters B ...]`, shaped like connect-mirror-maker.sh."""
    args = _alias_parser("mirror-maker", _mirror_maker_arguments).parse_args(argv)
    setup_logging()
    return run_mirror_maker(args.mm2_properties, args.clusters, args.listeners, args.check)


def distributed_main(argv: Sequence[str] | None = None) -> int:
    """`pyconnect-distributed worker.properties`, shaped like connect-distributed.sh."""
    args = _alias_parser("distributed", _distributed_arguments).parse_args(argv)
    setup_logging()
    return run_distributed(args.worker_properties)


def standalone_main(argv: Sequence[str] | None = None) -> int:
    """`pyconnect-standalone worker.properties [connector1.properties ...]`, shaped like connect-standalone.sh."""
    args = _alias_parser("standalone", _standalone_arguments).parse_args(argv)
    setup_logging()
    return run_standalone(args.worker_properties, args.connector_files)


if __name__ == "__main__":
    sys.exit(main())
