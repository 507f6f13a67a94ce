"""Auto-restart on a fake clock: Strimzi's backoff, maximum and reset (pyconnect/runtime/auto_restart.py).

Followed: Strimzi's AbstractConnectOperator (shouldAutoRestart, nextAutoRestartBackOffIntervalInMinutes:
min(n*n + n, maxBackoffMinutes); shouldResetAutoRestartStatus: more than that interval since the last
restart; autoRestartConnector: restart includeTasks=true onlyFailed=true), StatusUtils
(incrementAutoRestartStatus, minutesDifferenceUntilNow = ChronoUnit.MINUTES.between) and the api's
AutoRestart (maxRestarts unset = unlimited, maxBackoffMinutes 60), with their tests
KafkaConnectorIT/AbstractConnectOperatorAutoRestartTest as the model of the schedule checked here.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from connectors.mirror.maker_config import MirrorMakerConfig
from pyconnect.api.config import ConfigDef
from pyconnect.api.states import State
from pyconnect.config.auto_restart_keys import CONNECTOR_KEYS
from pyconnect.config.properties import ConfigFileError, parse_properties
from pyconnect.config.worker import WORKER_CONFIG, WorkerConfig
from pyconnect.runtime.auto_restart import (
    AutoRestarter,
    AutoRestartPolicy,
    Decision,
    backoff_minutes,
    decide,
    minutes_between,
)
from pyconnect.runtime.connector_config import common_errors
from pyconnect.storage.config_store import ConfigStore
from pyconnect.storage.log import MemoryLog, MemoryTopic
from pyconnect.storage.status_store import AutoRestartRecord, Status, StatusStore
from tests.harness.clock import FakeClock

MINUTE = 60.0
BASE = {"group.id": "g", "config.storage.topic": "c", "offset.storage.topic": "o", "status.storage.topic": "s"}


def worker_values(**extra: str) -> dict[str, Any]:
    return WORKER_CONFIG.parse({**BASE, **extra})


class Cluster:
    """A leader's config and status stores over in-memory topics, and an AutoRestarter on a fake clock."""

    def __init__(self, connector: dict[str, str], **worker: str) -> None:
        self.clock = FakeClock()
        self.configs_topic, self.status_topic = MemoryTopic(), MemoryTopic()
        self.configs = ConfigStore(MemoryLog(self.configs_topic))
        self.statuses = StatusStore(MemoryLog(self.status_topic))
        self.configs.start()
        self.statuses.start()
        self.configs.put_connector_config("c", {"connector.class": "SequenceSource", **connector})
        self.restarter = AutoRestarter(self.configs, self.statuses, self.clock, worker_values(**worker))
        self.epoch = 1

    def fail_task(self) -> None:
        MemoryLog(self.configs_topic).send(b"task-c-0", orjson.dumps({"properties": {}}))
        MemoryLog(self.configs_topic).send(b"commit-c", orjson.dumps({"tasks": 1}))
        self.statuses.put_connector("c", Status(State.RUNNING, "w1", 1))
        self.statuses.put_task("c", 0, Status(State.FAILED, "w1", 1, "boom"))

    def run_task(self) -> None:
        self.statuses.put_task("c", 0, Status(State.RUNNING, "w1", 1))

    def restarts(self) -> list[dict[str, Any]]:
        return [orjson.loads(v or b"") for k, v, *_ in self.configs_topic.records if k == b"restart-connector-c"]

    def minutes(self, n: int) -> list[int]:
        """Advance `n` minutes, the leader ticking every 10 s; the minutes (from now) at which it restarted."""
        at = []
        for step in range(n * 6):
            before = len(self.restarts())
            self.restarter.tick(self.epoch)
            if len(self.restarts()) > before:
                at.append(step // 6)
            self.clock.advance(10)
        return at


def test_strimzi_backoff_intervals_and_minutes_truncate() -> None:
    assert [backoff_minutes(n, 60) for n in range(10)] == [0, 2, 6, 12, 20, 30, 42, 56, 60, 60]
    assert [backoff_minutes(n, 10) for n in range(5)] == [0, 2, 6, 10, 10]
    assert minutes_between(0, 119_999) == 1 and minutes_between(0, 120_000) == 2
    assert minutes_between(60_000, 0) == -1, "a clock gone back gives a negative count, as Java's between"


def test_a_connector_failing_for_ever_is_restarted_on_strimzis_schedule() -> None:
    cluster = Cluster({"auto.restart.enabled": "true"})
    cluster.fail_task()
    at = cluster.minutes(300)
    # First restart at once, then 2, 6, 12, 20, 30, 42, 56 and 60 minutes after the previous one.
    assert at == [0, 2, 8, 20, 40, 70, 112, 168, 228, 288]
    assert all(r == {"include-tasks": True, "only-failed": True} for r in cluster.restarts())
    record = cluster.statuses.auto_restart("c")
    assert record is not None and record.count == 10
    assert record.last_restart_ms == int((cluster.clock.time() - 12 * MINUTE) * 1000)


def test_no_restart_after_the_maximum_and_the_connector_override_wins() -> None:
    cluster = Cluster({"auto.restart.max.restarts": "3"}, **{"auto.restart.enabled": "true",
                                                              "auto.restart.max.restarts": "7"})
    cluster.fail_task()
    assert cluster.minutes(24 * 60) == [0, 2, 8], "three restarts in a day, then an operator's turn"
    record = cluster.statuses.auto_restart("c")
    assert record is not None and record.count == 3


def test_the_count_is_reset_once_stable_for_longer_than_the_next_backoff() -> None:
    cluster = Cluster({"auto.restart.enabled": "true"})
    cluster.fail_task()
    assert cluster.minutes(3) == [0, 2]
    cluster.run_task()  # restart 2 at minute 2 worked: the next interval is 6 minutes
    cluster.minutes(6)  # ticks up to minute 8:50, 6 whole minutes after the restart: not more than 6
    record = cluster.statuses.auto_restart("c")
    assert record is not None and record.count == 2
    cluster.minutes(1)  # the tick at minute 9: 7 minutes, more than 6, the count is reset
    assert cluster.statuses.auto_restart("c") is None
    assert cluster.status_topic.records[-1][:2] == (b"status-auto-restart-c", None), "a tombstone"
    cluster.fail_task()
    assert cluster.minutes(1) == [0], "after a reset the first restart is immediate again"
    assert (record := cluster.statuses.auto_restart("c")) is not None and record.count == 1


def test_disabled_by_default_and_a_new_leader_carries_on_from_the_status_topic() -> None:
    cluster = Cluster({})
    cluster.fail_task()
    assert cluster.minutes(10) == [], "the worker default is off, as in Connect"
    enabled = Cluster({}, **{"auto.restart.enabled": "true"})
    enabled.fail_task()
    assert enabled.minutes(1) == [0]
    # Another worker becomes leader: it reads count 1 from the status topic and waits out the 2 minutes.
    successor = AutoRestarter(enabled.configs, StatusStore(MemoryLog(enabled.status_topic)), enabled.clock,
                              worker_values(**{"auto.restart.enabled": "true"}))
    successor._statuses.start()
    enabled.restarter = successor
    enabled.epoch = 2
    assert enabled.minutes(2) == [1], "restart 2 at minute 2 of the first leader's clock, not at once"


def test_pure_decision_table() -> None:
    policy = AutoRestartPolicy(True, 2, 60)
    now = 10 * 60_000
    assert decide(True, None, policy, now) is Decision.RESTART
    assert decide(True, AutoRestartRecord(1, now - 119_999), policy, now) is Decision.NOTHING
    assert decide(True, AutoRestartRecord(1, now - 120_000), policy, now) is Decision.RESTART
    assert decide(True, AutoRestartRecord(2, 0), policy, now) is Decision.NOTHING, "at the maximum"
    assert decide(False, AutoRestartRecord(1, now - 180_000), policy, now) is Decision.RESET
    assert decide(False, AutoRestartRecord(1, now - 120_000), policy, now) is Decision.NOTHING, "needs > 2 min"
    assert decide(False, None, policy, now) is Decision.NOTHING
    assert decide(True, None, AutoRestartPolicy(False, None, 60), now) is Decision.NOTHING


def test_bad_values_are_refused_naming_the_key() -> None:
    for bad in ("-2", "0"):  # 0 would be one restart in Strimzi (the first is made whatever the maximum)
        with pytest.raises(ConfigFileError, match="auto.restart.max.restarts: Value must be -1"):
            WorkerConfig({**BASE, "auto.restart.max.restarts": bad})
    with pytest.raises(ConfigFileError, match="auto.restart.max.backoff.minutes"):
        WorkerConfig({**BASE, "auto.restart.max.backoff.minutes": "0"})
    errors = common_errors(ConfigDef([]), {"name": "c", "connector.class": "X", "auto.restart.enabled": "maybe",
                                          "auto.restart.max.restarts": "0"})
    assert any(e.startswith("auto.restart.enabled:") for e in errors), errors
    assert any(e.startswith("auto.restart.max.restarts:") for e in errors), errors


def test_a_connector_deleted_and_created_again_starts_from_no_count() -> None:
    cluster = Cluster({"auto.restart.enabled": "true"})
    cluster.fail_task()
    assert cluster.minutes(1) == [0]
    cluster.configs.remove_connector("c")
    cluster.statuses.delete_connector("c", 1)  # what the owner does when it sees the deletion
    cluster.restarter.tick(cluster.epoch)  # the leader sees it gone, a minute after its restart
    assert cluster.statuses.auto_restart("c") is None
    cluster.configs.put_connector_config("c", {"connector.class": "SequenceSource", "auto.restart.enabled": "true"})
    cluster.fail_task()
    assert cluster.minutes(1) == [0], "the new connector's first failure is restarted at once, not 2 min later"


def test_status_store_reads_the_record_and_skips_malformed_ones() -> None:
    topic = MemoryTopic()
    store = StatusStore(MemoryLog(topic))
    store.start()
    store.put_auto_restart("c", AutoRestartRecord(3, 1_700_000_000_000))
    assert orjson.loads(topic.records[-1][1] or b"") == {"count": 3, "lastRestartTimestamp": 1_700_000_000_000}
    MemoryLog(topic).send(b"status-auto-restart-d", b'{"count": "3"}')
    MemoryLog(topic).send(b"status-auto-restart-", b'{"count": 1, "lastRestartTimestamp": 1}')
    reader = StatusStore(MemoryLog(topic))
    reader.start()
    assert reader.auto_restart("c") == AutoRestartRecord(3, 1_700_000_000_000)
    assert reader.auto_restart("d") is None and reader.auto_restart("") is None
    store.delete_connector("c", 0)
    assert reader.auto_restart("c") is None, "a connector's tombstones take its count"


MM2_HEAD = "clusters = A, B\nA.bootstrap.servers = a:9092\nB.bootstrap.servers = b:9092\nA->B.enabled = true\n"


@pytest.mark.parametrize("key", ["auto.restart.enabled", "A->B.auto.restart.max.restarts",
                                 "auto.restart.max.backoff.minutes"])
def test_mm2_properties_bad_value_at_any_scope_stops_the_start(key: str) -> None:
    text = MM2_HEAD + f"{key} = {'maybe' if key.endswith('enabled') else '0'}\n"
    with pytest.raises(ConfigFileError) as caught:
        MirrorMakerConfig(parse_properties(text, "mm2.properties"), resolve_providers=False)
    assert str(caught.value).startswith(f"mm2.properties:5: {key}: "), str(caught.value)


def test_mm2_properties_top_level_and_flow_scope_reach_the_connectors() -> None:
    text = MM2_HEAD + "auto.restart.enabled = true\nauto.restart.max.restarts = 3\nA->B.auto.restart.max.restarts = 9\n"
    config = MirrorMakerConfig(parse_properties(text, "mm2.properties"), resolve_providers=False)
    worker = {k: v for k, v in worker_values().items() if k in CONNECTOR_KEYS.keys}
    got = {str(f): AutoRestartPolicy.of(worker, config.connector_config(f, "MirrorSourceConnector"))
           for f in config.flows}
    assert got == {"A->B": AutoRestartPolicy(True, 9, 60), "B->A": AutoRestartPolicy(True, 3, 60)}
