"""`replikafka backfill`: run a MirrorSource connector's backfill once, in this process, with progress.

    replikafka backfill worker.properties mirror-source.properties [--topic T ...] [--threshold N]

The worker file names the Connect cluster whose offsets topic holds the connector's offsets (the plan
and the hand-over are written there, so the connector's streaming tasks start exactly where the
copy ended); the connector file is the MirrorSourceConnector config (`name=` required) with
`spark.master` and other `spark.*` keys. Run it before the connector is created, or while it is
stopped. Re-running after a crash resumes without copying anything twice. Exit codes: 0 done,
1 Kafka/Spark error, 2 bad file or argument.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from collections.abc import Mapping
from typing import Any

from pyconnect.config.properties import ConfigFileError, load_properties
from pyconnect.config.providers import resolve_config
from pyconnect.config.worker import WorkerConfig, load_worker_config


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    bf = sub.add_parser("backfill", help="bulk-copy a MirrorSource connector's backlog on Spark")
    bf.add_argument("worker_properties", help="worker.properties of the Connect cluster (offsets topic)")
    bf.add_argument("connector_properties", help="the MirrorSourceConnector config (name=..., spark.*)")
    bf.add_argument("--topic", action="append", default=[], help="backfill only this source topic (repeatable)")
    bf.add_argument("--threshold", type=int, help="override backfill.threshold.records")


class ProgressBar:
    """Per-topic lines: records copied/total, rate and ETA (redrawn on a terminal, else every 5 s)."""

    def __init__(self, out: Any = sys.stderr) -> None:
        self.out = out
        self.tty = bool(getattr(out, "isatty", lambda: False)())
        self._last = 0.0
        self._lines = 0

    def __call__(self, progress: Mapping[str, Any]) -> None:
        now = time.monotonic()
        final = progress.get("state") == "done"
        if not final and now - self._last < (0.5 if self.tty else 5.0):
            return
        self._last = now
        rate = float(progress.get("rate_records_per_second") or 0)
        lines = []
        for topic, t in sorted(progress.get("topics", {}).items()):
            total, copied = int(t["records_total"]), int(t["records_copied"])
            share = copied / total if total else 1.0
            bar = "#" * int(share * 30) + "-" * (30 - int(share * 30))
            eta = t.get("eta_seconds")
            lines.append(f"{topic:<30} [{bar}] {share * 100:5.1f}% {copied:,}/{total:,} records  "
                         f"{t['partitions_done']}/{t['partitions']} partitions  "
                         f"ETA {'-' if eta is None else f'{eta:.0f}s'}")
        lines.append(f"{'total':<30} {int(progress.get('records_copied', 0)):,}/"
                     f"{int(progress.get('records_total', 0)):,} records at {rate:,.0f} records/s")
        if self.tty and self._lines:
            self.out.write(f"\x1b[{self._lines}F")
        self.out.write("\n".join(lines) + "\n")
        self.out.flush()
        self._lines = len(lines)


class _Exit(Exception):
    """Stop with `code`, printing `message` (if any) to stderr."""

    def __init__(self, code: int, message: str = "") -> None:
        super().__init__(message)
        self.code, self.message = code, message


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except _Exit as stop:
        if stop.message:
            print(stop.message, file=sys.stderr)
        return stop.code


def _connector(args: argparse.Namespace) -> tuple[WorkerConfig, str, dict[str, str], Any]:
    """The worker settings, connector name, resolved config and a validated MirrorSourceConnector."""
    from connectors.mirror.source_connector import MirrorSourceConnector
    from pyconnect.plugins import registry
    from pyconnect.runtime.connector_runner import connector_instance

    path = args.connector_properties
    try:
        worker = load_worker_config(load_properties(args.worker_properties))
        raw = load_properties(path).values()
    except ConfigFileError as exc:
        raise _Exit(2, f"error: {exc}") from None
    name = raw.get("name", "").strip()
    if not name:
        raise _Exit(2, f"error: {path}: name: the connector name is required")
    config = resolve_config(raw)
    if args.threshold is not None:
        config["backfill.threshold.records"] = str(args.threshold)
    try:
        connector = connector_instance(registry, config)
    except ValueError as exc:
        raise _Exit(2, f"error: {path}: connector.class: {exc}") from None
    if not isinstance(connector, MirrorSourceConnector):
        raise _Exit(2, f"error: {path}: connector.class: backfill needs a MirrorSourceConnector, "
                       f"not {config.get('connector.class')}")
    errors = [f"{k}: {m}" for k, v in connector.validate(config).items() for m in v.errors]
    if errors:
        raise _Exit(2, f"error: {path}: " + "; ".join(errors))
    return worker, name, config, connector


def _partitions(args: argparse.Namespace, connector: Any, reader: Any, config: Mapping[str, str]) -> set[Any]:
    """The partitions to backfill: the named topics' (checked to exist), or the connector's plan."""
    from connectors.mirror.backfill_plan import candidates
    from pyconnect.kafka.admin import Admin

    connector.initialize(_CliContext(reader))
    connector.start({**config, "backfill.enabled": "true", "refresh.topics.enabled": "false"})
    try:
        cfg = connector.cfg
        if not args.topic:
            return set(connector.backfill_partitions())
        existing = Admin(cfg.client("source", "admin")).topic_partitions()
        unknown = [t for t in args.topic if t not in existing]
        if unknown:
            raise _Exit(2, f"error: topic(s) {', '.join(unknown)} do not exist on source cluster {cfg.source} "
                           f"({cfg.client('source', 'admin').get('bootstrap.servers')})")
        connector.remote.ensure({t: existing[t] for t in args.topic})
        return set(candidates(cfg, reader, {(t, p) for t in args.topic for p in range(existing[t])}))
    finally:
        connector.stop()


def _copy(tps: set[Any], name: str, config: Mapping[str, str], reader: Any, offsets: Any) -> int:
    """Run the batch task over `tps` until done, or until SIGTERM/SIGINT (then resumable)."""
    from connectors.mirror.backfill_task import MirrorBackfillTask
    from pyconnect.runtime.source.batch_runner import BatchContext

    task = MirrorBackfillTask()
    task.initialize(BatchContext(reader, config, offsets, name, ProgressBar(), 60.0))
    task.start({**config, "backfill.assigned.partitions": ",".join(f"{t}-{p}" for t, p in sorted(tps))})
    stop = threading.Event()

    def on_signal(_signum: int, _frame: Any) -> None:
        stop.set()
        task.stop()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    task.run()
    if stop.is_set():
        raise _Exit(1, "backfill interrupted; run the same command again to resume")
    return 0


def _run(args: argparse.Namespace) -> int:
    from pyconnect.runtime.internal_topics import kafka_log_factory
    from pyconnect.runtime.source.runner import ConnectorOffsetReader
    from pyconnect.storage.offset_store import OffsetStore

    worker, name, config, connector = _connector(args)
    offsets: OffsetStore | None = None
    try:
        factory, _cluster = kafka_log_factory(worker)
        offsets = OffsetStore(factory(worker.settings.offset_storage_topic, worker.settings.offset_storage_partitions))
        offsets.start()
        reader = ConnectorOffsetReader(offsets, name)
        tps = _partitions(args, connector, reader, config)
        if not tps:
            raise _Exit(0, "nothing to backfill: every partition is handed to streaming (below the threshold, "
                           "already streamed, or done)")
        return _copy(tps, name, config, reader, offsets)
    except _Exit:
        raise
    except Exception as exc:  # Kafka, Spark (a Py4J error carrying the executor's trace), a bad plan
        raise _Exit(1, f"error: backfill failed: {exc}") from None
    finally:
        if offsets is not None:
            offsets.stop()


class _CliContext:
    def __init__(self, reader: Any) -> None:
        self.offset_storage_reader = reader

    def request_task_reconfiguration(self) -> None:
        return None

    def raise_error(self, error: BaseException) -> None:
        raise error
