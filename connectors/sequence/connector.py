"""SequenceSourceConnector: each task writes `<task>:<n>` for n = 0, 1, 2, ... to a topic.

A built-in source for demos and for testing the runtime: its records are easy to check for gaps
and duplicates, and its offsets (`{"task": i}` -> `{"seq": n}`) show where a task resumes.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from pyconnect.api import (
    ConfigDef,
    ConfigKey,
    ConfigType,
    ExactlyOnceSupport,
    Importance,
    SourceConnector,
    SourceRecord,
    SourceTask,
)
from pyconnect.api.config import at_least, non_empty_string

CONFIG = ConfigDef([
    ConfigKey("topic", ConfigType.STRING, importance=Importance.HIGH,
              documentation="Topic to write to.", validator=non_empty_string),
    ConfigKey("tasks.max", ConfigType.INT, 1, Importance.HIGH, "Number of tasks.", validator=at_least(1)),
    ConfigKey("rate", ConfigType.DOUBLE, 100.0, Importance.MEDIUM,
              "Records per second per task (0 = as fast as possible).", validator=at_least(0)),
    ConfigKey("count", ConfigType.LONG, 0, Importance.MEDIUM,
              "Records per task, then the task idles (0 = no end).", validator=at_least(0)),
    ConfigKey("batch.size", ConfigType.INT, 100, Importance.LOW, "Records per poll at most.",
              validator=at_least(1)),
    ConfigKey("fail.at", ConfigType.LONG, -1, Importance.LOW,
              "Failure drill: raise once when this sequence number is reached; a task restarted from there "
              "carries on (a transient failure)."),
    ConfigKey("fail.task", ConfigType.INT, -1, Importance.LOW, "Only this task fails (-1: every task)."),
    ConfigKey("stop.delay.ms", ConfigType.LONG, 0, Importance.LOW,
              "Slow-stop drill: stop() takes this long, as a task closing a slow external system does, so the "
              "task's last offset commit comes that much later (e.g. to watch a hand-over between workers).",
              validator=at_least(0)),
])


class SequenceSourceTask(SourceTask):
    stop_delay = 0.0  # seconds; also for a stop() before start()

    def start(self, config: Mapping[str, str]) -> None:
        values = CONFIG.parse(config)
        self.topic = str(values["topic"])
        self.index = int(config.get("task.index", "0"))
        self.rate = float(values["rate"])
        self.count = int(values["count"])
        self.batch = int(values["batch.size"])
        fail_task = int(values["fail.task"])
        self.fail_at = int(values["fail.at"]) if fail_task in (-1, self.index) else -1
        self.stop_delay = int(values["stop.delay.ms"]) / 1000.0
        self.partition = {"task": self.index}
        assert self.context is not None
        committed = self.context.offset_storage_reader.offset(self.partition)
        self.next_seq = int(committed["seq"]) + 1 if committed else 0
        if self.next_seq == self.fail_at:
            self.fail_at = -1  # restarted at the failure point: the drill's failure was transient
        self.started = time.monotonic()
        self.emitted = 0
        self.stopped = False

    def poll(self) -> list[SourceRecord] | None:
        if self.stopped:
            return None
        n = self.batch
        if self.count:
            n = min(n, self.count - self.next_seq)
        if self.rate > 0:
            due = int((time.monotonic() - self.started) * self.rate) - self.emitted
            n = min(n, due)
        if self.next_seq == self.fail_at:
            raise RuntimeError(f"sequence task {self.index} was configured to fail at {self.fail_at}")
        if self.fail_at > self.next_seq:
            n = min(n, self.fail_at - self.next_seq)  # everything before the failure point is delivered
        if n <= 0:
            time.sleep(0.02)
            return None
        records = []
        key = str(self.index).encode()
        for seq in range(self.next_seq, self.next_seq + n):
            records.append(SourceRecord(self.partition, {"seq": seq}, self.topic,
                                        f"{self.index}:{seq}".encode(), key=key))
        self.next_seq += n
        self.emitted += n
        return records

    def stop(self) -> None:
        self.stopped = True
        if self.stop_delay:
            time.sleep(self.stop_delay)


class SequenceSourceConnector(SourceConnector):
    java_class_name = "pyconnect.connectors.SequenceSourceConnector"

    def config_def(self) -> ConfigDef:
        return CONFIG

    def start(self, config: Mapping[str, str]) -> None:
        self.config = dict(config)

    def exactly_once_support(self, config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        return ExactlyOnceSupport.SUPPORTED  # a task resumes from its committed offset, whatever wrote it

    def task_class(self) -> type[SourceTask]:
        return SequenceSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self.config, "task.index": str(i)} for i in range(max_tasks)]

    def stop(self) -> None:
        return None
