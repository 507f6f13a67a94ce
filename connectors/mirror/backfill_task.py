"""MirrorBackfillTask: the batch task that bulk-copies planned partition ranges on Spark.

The driver (this task, in the worker) plans the ranges (or reloads the stored plan), starts a Spark
session (`spark.master`, default local[*]; every `spark.*` key passed through), and runs one Spark
job of one Spark task per partition range, so that a partition is never split across writers. At most
`backfill.parallelism` ranges are in flight at once (0: Spark's default parallelism): a pool of that
many driver threads, each waiting on one range's job. When a range's job returns, the driver hands the
partition over to streaming in one offsets write: its MirrorSource offset (end - 1, so the streaming
task starts at `end` exactly) and the plan marked done. Progress is derived from the remote partitions' end offsets.

Invariants the exactly-once copy rests on (backfill_copy measures what landed and goes on from there):
- One writer per range at a time. A range is one Spark task with one attempt (SINGLE_ATTEMPT: speculation
  off, no retries; settings allowing more are refused at validation); a connector has one batch task; the
  runs of one process take turns (_SPARK_LOCK), and a stopped run cancels its jobs and stops its session
  (Spark ends the Python workers that copied) before the next run starts a session and measures again.
- What landed is measured with ListOffsets(latest), the high watermark on Kafka. A broker answering less
  (Tansu after a multi-record batch answers the last batch's base offset + 1) makes a resumed copy write
  the rest of that batch again: its test harness keeps one record per batch.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import sys
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlparse

from connectors.mirror.backfill_copy import CopyResult, CopySpec, copy_range
from connectors.mirror.backfill_plan import PartitionPlan, by_topic, make_plans, plan_key, stored_plans
from connectors.mirror.config import SOURCE, MirrorConfig
from connectors.mirror.source_task import parse_partitions, source_partition
from pyconnect.api import BatchTask
from pyconnect.kafka.clients import end_offsets, new_consumer
from pyconnect.logging_context import context_thread

log = logging.getLogger(__name__)

_SPARK_LOCK = threading.Lock()  # one Spark context per process: backfills of one worker take turns
SPARK_DEFAULTS = {"spark.ui.showConsoleProgress": "false"}
# One attempt per range: a speculative or retried attempt measures what landed while an earlier attempt of
# the same range may still have records in flight, and copies them again. A failed range fails the batch
# task instead, and the next run resumes from the target. Settings that allow a second attempt are refused.
SINGLE_ATTEMPT = {"spark.speculation": "false", "spark.task.maxFailures": "1"}
_LOCAL_WITH_RETRIES = re.compile(r"local\[\s*(\*|\d+)\s*,\s*(\d+)\s*\]")
_TWICE = "would let Spark run a range twice, and a second attempt copies again what the first one still had in flight"


def refused_spark_settings(config: Mapping[str, str]) -> dict[str, str]:
    """The connector's Spark settings that would allow a second attempt of a range, each with its reason
    (MirrorSourceConnector.validate reports them on their keys)."""
    refused = {}
    if config.get("spark.speculation", "false").strip().lower() != "false":
        refused["spark.speculation"] = f"speculative tasks {_TWICE}: leave it false"
    if config.get("spark.task.maxFailures", "1").strip() != "1":
        refused["spark.task.maxFailures"] = (f"retries {_TWICE}: leave it 1 (a failed range fails the batch "
                                             "task; the next run resumes from the target)")
    local = _LOCAL_WITH_RETRIES.fullmatch(config.get("spark.master", "").strip())
    if local and int(local.group(2)) > 1:
        refused["spark.master"] = f"local[N,F] with F > 1 retries failed tasks, which {_TWICE}: use local[N]"
    return refused


class SparkMasterUnreachable(RuntimeError):
    pass


def check_master(master: str, timeout: float = 10.0) -> None:
    """Fail fast, with the reason, when a standalone master cannot be reached (Spark itself would
    retry registration for a minute and then hang the job)."""
    if not master.startswith("spark://"):
        return
    errors = []
    for hostport in master[len("spark://"):].split(","):
        parsed = urlparse(f"//{hostport}")
        try:
            with socket.create_connection((parsed.hostname or "", parsed.port or 7077), timeout):
                return
        except OSError as exc:
            errors.append(f"{hostport}: {exc}")
    raise SparkMasterUnreachable(f"Spark master {master} is unreachable ({'; '.join(errors)})")


class MirrorBackfillTask(BatchTask):
    def __init__(self) -> None:
        self._stopping = threading.Event()
        self._spark: Any = None

    def start(self, config: Mapping[str, str]) -> None:
        self.cfg = MirrorConfig(SOURCE, config)
        self.assigned = parse_partitions(config.get("backfill.assigned.partitions", ""))

    def stop(self) -> None:
        self._stopping.set()
        spark = self._spark
        if spark is not None:
            try:
                spark.sparkContext.cancelAllJobs()
            except Exception:
                log.debug("could not cancel the Spark jobs", exc_info=True)

    # the run ---------------------------------------------------------------------------------

    def run(self) -> None:
        assert self.context is not None
        self._stopping.clear()
        plans = self._plans()
        pending = [p for p in plans if not p.done]
        progress = _Progress(plans, self.cfg, self.context.report_progress)
        if not pending:
            progress.finish()
            return
        settings = {**SPARK_DEFAULTS, **self.cfg.spark_settings(), **SINGLE_ATTEMPT}  # others: refused
        # PySpark starts executors' Python workers with $PYSPARK_PYTHON (spark.pyspark.python is only
        # read by spark-submit). Local mode defaults to this very interpreter, which has the
        # connector's dependencies; on a cluster, spark.pyspark.python names the executors' one.
        python = settings.get("spark.pyspark.python") or (
            sys.executable if settings["spark.master"].startswith("local") else None)
        if python and not os.environ.get("PYSPARK_PYTHON"):
            os.environ["PYSPARK_PYTHON"] = python
        check_master(settings["spark.master"])
        with _SPARK_LOCK:
            from pyspark.sql import SparkSession  # imported here: only batch tasks need Spark

            builder = SparkSession.builder.appName(f"pyconnect-backfill-{self.cfg.source}-{self.cfg.target}")
            for key, value in settings.items():
                builder = builder.config(key, value)
            self._spark = builder.getOrCreate()
            try:
                self._spark.sparkContext.setLogLevel("WARN")
                progress.start()
                self._copy_all(pending, progress)
            finally:
                progress.stop()
                spark, self._spark = self._spark, None
                spark.stop()
        if not self._stopping.is_set():
            progress.finish()

    def _plans(self) -> list[PartitionPlan]:
        assert self.context is not None
        known = stored_plans(self.context.offset_storage_reader, self.cfg.source, self.assigned)
        missing = [tp for tp in self.assigned if tp not in known]
        if missing:
            fresh = make_plans(self.cfg, missing)
            self.context.write_offsets([(plan_key(self.cfg.source, p.topic, p.partition), p.value())
                                        for p in fresh])
            known.update({(p.topic, p.partition): p for p in fresh})
            log.info("backfill plan: %s", ", ".join(f"{p.topic}-{p.partition} [{p.start}, {p.end})"
                                                    for p in fresh))
        return [known[tp] for tp in self.assigned]

    def _copy_all(self, pending: list[PartitionPlan], progress: _Progress) -> None:
        sc = self._spark.sparkContext
        parallelism = int(self.cfg["backfill.parallelism"]) or int(sc.defaultParallelism)
        with ThreadPoolExecutor(max(1, min(parallelism, len(pending))), thread_name_prefix="backfill") as pool:
            futures = [pool.submit(self._copy_one, sc, plan, progress) for plan in pending]
            errors = [f.exception() for f in futures]
        failed = [e for e in errors if e is not None]
        if failed and not self._stopping.is_set():
            raise failed[0]

    def _copy_one(self, sc: Any, plan: PartitionPlan, progress: _Progress) -> None:
        if self._stopping.is_set():
            return
        spec = self._spec(plan)
        sc.setJobGroup(f"backfill-{plan.topic}-{plan.partition}", f"copy {plan.topic}-{plan.partition} "
                       f"[{plan.start}, {plan.end})", interruptOnCancel=True)
        result: CopyResult = sc.parallelize([spec], 1).map(copy_range).collect()[0]
        self._hand_over(plan)
        progress.done(plan, result)
        log.info("backfilled %s-%d: %d record(s) copied, %d found already copied, %d offset sync(s)",
                 plan.topic, plan.partition, result.copied, result.skipped, result.syncs)

    def _spec(self, plan: PartitionPlan) -> CopySpec:
        cfg = self.cfg
        syncs = cfg.client(cfg.offset_syncs_side(), "producer") if cfg["emit.offset-syncs.enabled"] else None
        return CopySpec(
            topic=plan.topic, partition=plan.partition,
            remote_topic=cfg.policy().format_remote_topic(cfg.source, plan.topic),
            start=plan.start, end=plan.end, target_start=plan.target_start,
            source_consumer=cfg.backfill_client("source", "consumer"),
            target_consumer=cfg.client("target", "consumer"),
            target_producer=cfg.backfill_client("target", "producer"),
            syncs_producer=syncs, syncs_topic=cfg.offset_syncs_topic())

    def _hand_over(self, plan: PartitionPlan) -> None:
        """One write: streaming starts at `end`, and the plan is done."""
        assert self.context is not None
        done = PartitionPlan(plan.topic, plan.partition, plan.start, plan.end, plan.target_start, True)
        writes: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
        if plan.end > 0:
            writes.append((source_partition(self.cfg.source, plan.topic, plan.partition), {"offset": plan.end - 1}))
        writes.append((plan_key(self.cfg.source, plan.topic, plan.partition), done.value()))
        self.context.write_offsets(writes)


class _Progress:
    """Records copied/total, rate and ETA per topic, from the remote partitions' end offsets."""

    def __init__(self, plans: list[PartitionPlan], cfg: MirrorConfig, publish: Any) -> None:
        self._plans = {(p.topic, p.partition): p for p in plans}
        self._cfg = cfg
        self._publish = publish
        self._copied = {tp: (p.size if p.done else 0) for tp, p in self._plans.items()}
        self._done = {tp for tp, p in self._plans.items() if p.done}
        self._started = time.monotonic()
        self._first = sum(self._copied.values())
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._started = time.monotonic()
        self._thread = context_thread(self._loop, "backfill-progress")  # logs as the task does
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)

    def done(self, plan: PartitionPlan, result: CopyResult) -> None:
        with self._lock:
            self._copied[(plan.topic, plan.partition)] = plan.size
            self._done.add((plan.topic, plan.partition))
        self.publish("copying")

    def finish(self) -> None:
        with self._lock:
            self._copied = {tp: p.size for tp, p in self._plans.items()}
            self._done = set(self._plans)
        self.publish("done")

    def _loop(self) -> None:
        policy = self._cfg.policy()
        consumer = new_consumer(self._cfg.client("target", "consumer"))
        try:
            while not self._stop.wait(1.0):
                with self._lock:
                    todo = [tp for tp in self._plans if tp not in self._done]
                try:
                    for topic, partitions in by_topic(todo).items():
                        ends = end_offsets(consumer, policy.format_remote_topic(self._cfg.source, topic), partitions)
                        with self._lock:
                            for p, end in ends.items():
                                plan = self._plans[(topic, p)]
                                if (topic, p) not in self._done:
                                    self._copied[(topic, p)] = min(plan.size, max(0, end - plan.target_start))
                except Exception as exc:
                    log.debug("backfill progress probe failed: %s", exc)
                self.publish("copying")
        finally:
            consumer.close()

    def publish(self, state: str) -> None:
        elapsed = max(time.monotonic() - self._started, 1e-3)
        topics: dict[str, dict[str, Any]] = {}
        with self._lock:
            for (topic, p), plan in self._plans.items():
                entry = topics.setdefault(topic, {"records_copied": 0, "records_total": 0, "partitions": 0,
                                                  "partitions_done": 0})
                entry["records_copied"] += self._copied[(topic, p)]
                entry["records_total"] += plan.size
                entry["partitions"] += 1
                entry["partitions_done"] += (topic, p) in self._done
        copied = sum(t["records_copied"] for t in topics.values())
        rate = max(0.0, (copied - self._first) / elapsed)
        for entry in topics.values():
            left = entry["records_total"] - entry["records_copied"]
            entry["eta_seconds"] = round(left / rate, 1) if rate > 0 and left else (0.0 if not left else None)
        total = sum(t["records_total"] for t in topics.values())
        self._publish({"state": state, "records_copied": copied, "records_total": total,
                       "rate_records_per_second": round(rate, 1),
                       "eta_seconds": round((total - copied) / rate, 1) if rate > 0 and total > copied else (
                           0.0 if total == copied else None),
                       "topics": topics})
