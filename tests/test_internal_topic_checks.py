"""Internal topics checked by workers that start together (one creates, the others find it and check it).

On Apache Kafka (KRaft) CreateTopics answers once the controller has the topic; the broker's Metadata and
DescribeConfigs may answer UNKNOWN_TOPIC_OR_PART for a moment after. A worker that found the topic already
created (TOPIC_ALREADY_EXISTS) and then checked its cleanup.policy crashed at start on that race (every test of
tests/test_rest_api.py errored at setup on Kafka 4.3.1); Tansu never shows it. Connect's KafkaBasedLog waits for
a new topic the same way. (No Kafka test to port: TopicAdminTest mocks the admin client.)
"""

from __future__ import annotations

import threading

import pytest

from pyconnect.kafka.admin import Admin, TopicSpec
from pyconnect.kafka.clients import KafkaClientError
from tests.harness.brokers import Broker

ROUNDS, WORKERS = 10, 3


def test_workers_starting_together_all_accept_the_topic_one_created(broker: Broker, unique: str) -> None:
    admins = [Admin({"bootstrap.servers": broker.bootstrap}) for _ in range(WORKERS)]
    for i in range(ROUNDS):
        spec = TopicSpec(f"race-{unique}-{i}", 3, 1, {"cleanup.policy": "compact"})
        failures: list[BaseException] = []

        def start(admin: Admin, spec: TopicSpec = spec, failures: list[BaseException] = failures) -> None:
            try:
                admin.ensure_compacted_topic(spec, exact_partitions=True)
            except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
                failures.append(exc)
        threads = [threading.Thread(target=start, args=(a,)) for a in admins]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not failures, f"round {i}: {failures}"
        assert all(a.topic_partitions()[spec.name] == 3 for a in admins)


def test_a_topic_that_is_not_compacted_is_still_refused_with_the_reason(broker: Broker, unique: str) -> None:
    creator, checker = Admin({"bootstrap.servers": broker.bootstrap}), Admin({"bootstrap.servers": broker.bootstrap})
    spec = TopicSpec(f"race-{unique}-delete", 1, 1, {"cleanup.policy": "delete"})
    assert creator.create_topic(spec)
    with pytest.raises(KafkaClientError, match="must have cleanup.policy=compact but has delete"):
        checker.ensure_compacted_topic(TopicSpec(spec.name, 1, 1, {"cleanup.policy": "compact"}))
