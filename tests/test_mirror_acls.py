"""MirrorSource topic ACL sync against real brokers: when the connector asks the source cluster for its ACLs
(`sync.topic.acls.enabled`, `sync.topic.acls.interval.seconds`), and what it does with a source that has no
authorizer, and which ACLs land on the target. The requests are seen on the wire by a counting proxy in front
of each broker (tests/harness/request_counter.py), which also keeps ACLs for Tansu (tests/harness/acl_broker.py);
every case of which bindings are copied, and how, is in tests/unit/test_mirror_acls.py.

Kafka's behaviour followed: MirrorSourceConnector.start schedules syncTopicAcls with
scheduleRepeating(syncTopicAclsInterval) (at start, then every interval; never when disabled, whose interval is
-1 in MirrorSourceConfig.syncTopicAclsInterval), and MirrorSourceConnectorTest.testNoBrokerAclAuthorizer.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from typing import Any

import pytest

from pyconnect.kafka.admin import Admin, TopicAcl
from tests.harness.acl_broker import AclStore, Binding
from tests.harness.brokers import Broker
from tests.harness.kafka_io import create_topic
from tests.harness.mirror import mirror_source
from tests.harness.request_counter import (
    CREATE_ACLS,
    DESCRIBE_ACLS,
    DESCRIBE_CONFIGS,
    METADATA,
    CountedBroker,
    RequestCounter,
    no_authorizer_answer,
    start_counted_tansu,
)
from tests.harness.workers import Cluster, WorkerProcess, wait_for

ADVICE = "Consider disabling topic ACL syncing by setting sync.topic.acls.enabled to 'false'"


@pytest.fixture
def counted(broker: Broker) -> Iterator[CountedBroker]:
    """A source cluster whose every request is recorded (Tansu only: it must advertise the proxy)."""
    if broker.kind != "tansu":
        pytest.skip("the counting proxy sits in front of a Tansu broker the harness starts")
    source = start_counted_tansu("S")
    yield source
    source.stop()


def connector_running(worker: WorkerProcess, name: str) -> bool:
    r = worker.request("GET", f"/connectors/{name}/status")
    return r.status_code == 200 and r.json()["connector"]["state"] == "RUNNING"


def gaps(counter: RequestCounter, client_id: str) -> list[float]:
    """Seconds between the DescribeAcls requests `client_id` sent, in order."""
    times = [r.at for r in counter.requests(DESCRIBE_ACLS, client_id)]
    return [b - a for a, b in zip(times, times[1:], strict=False)]


def start_flows(worker: WorkerProcess, source: Broker, target: Broker, flows: dict[str, dict[str, str]],
                unique: str) -> None:
    """One MirrorSource connector per flow, each with its own source admin client id (its name), none
    matching a topic: the connector runs with no task, and its admin is the only client with that id."""
    for name, overrides in flows.items():
        config = mirror_source(source, target, {"topics": f"none-{unique}", "source.admin.client.id": name,
                                                **overrides}, source=name)
        assert worker.request("POST", "/connectors", {"name": name, "config": config}).status_code == 201
    wait_for(lambda: all(connector_running(worker, n) for n in flows), 60, "connectors running")


def test_acl_sync_asks_the_source_on_its_interval_and_never_when_disabled(
        cluster_factory: Any, broker_b: Broker, counted: CountedBroker, unique: str) -> None:
    """sync.topic.acls.interval.seconds=1 asks about every second, =3 about every 3 s (from the start on),
    and sync.topic.acls.enabled=false never asks while the same connector's admin talks to the source."""
    cluster: Cluster = cluster_factory(on=broker_b)
    (w,) = cluster.start(1)
    counter = counted.counter
    start_flows(w, counted.broker, broker_b, {
        "every1": {"sync.topic.acls.interval.seconds": "1"},
        "every3": {"sync.topic.acls.interval.seconds": "3"},
        "off": {"sync.topic.acls.enabled": "false", "sync.topic.acls.interval.seconds": "1"}}, unique)
    # Until the 3 s flow has asked 4 times (its start, then 3 intervals): about 9 s of the schedule.
    wait_for(lambda: len(counter.requests(DESCRIBE_ACLS, "every3")) >= 4, 30, "4 ACL requests every 3 s")
    one, three = gaps(counter, "every1"), gaps(counter, "every3")
    assert len(one) >= 7, f"every 1 s over ~9 s: {one}"
    assert 0.8 <= statistics.median(one) <= 1.5, one
    assert all(g >= 0.8 for g in one), f"never sooner than the interval: {one}"
    assert all(2.7 <= g <= 4.5 for g in three), three
    assert counter.requests(DESCRIBE_ACLS, "off") == []
    # Tansu reports no authorizer.class.name: an empty answer is not taken for a missing authorizer
    assert ADVICE not in w.log_path.read_text(errors="replace")
    seen = len(counter.requests(METADATA, "off"))
    # the disabled flow's admin keeps talking to the source (its topic refresh every 2 s): it was seen, not silent
    wait_for(lambda: len(counter.requests(METADATA, "off")) > seen, 10, "the disabled flow's topic refresh")
    assert counter.requests(DESCRIBE_ACLS, "off") == []


def test_a_source_without_authorizer_leaves_the_connector_running(
        cluster_factory: Any, broker_b: Broker, broker: Broker) -> None:
    """MirrorSourceConnectorTest.testNoBrokerAclAuthorizer, end to end: the source answers as a Kafka broker
    without an authorizer does (DescribeAcls: SECURITY_DISABLED; authorizer.class.name=""). The advice to turn
    the sync off is logged once however many rounds run, the authorizer is looked up once, the connector keeps
    running and keeps its schedule, and the target is never asked to create an ACL."""
    if broker.kind != "tansu":
        pytest.skip("the counting proxy sits in front of a Tansu broker the harness starts")
    source, target = start_counted_tansu("S", no_authorizer_answer), start_counted_tansu("T")
    try:
        cluster: Cluster = cluster_factory(on=broker_b)
        (w,) = cluster.start(1)
        start_flows(w, source.broker, target.broker, {"noauth": {"sync.topic.acls.interval.seconds": "1"}}, "x")
        wait_for(lambda: len(source.counter.requests(DESCRIBE_ACLS, "noauth")) >= 4, 30, "4 ACL requests")
        assert connector_running(w, "noauth")
        log = w.log_path.read_text(errors="replace")
        assert log.count(ADVICE) == 1, log
        assert len(source.counter.requests(DESCRIBE_CONFIGS, "noauth")) == 1, "the authorizer is looked up once"
        assert target.counter.requests(CREATE_ACLS) == []
        assert "Traceback" not in log
    finally:
        source.stop()
        target.stop()


def test_topic_acls_land_on_the_remote_topics_and_new_ones_follow(
        cluster_factory: Any, broker_b: Broker, broker: Broker, unique: str) -> None:
    """MirrorSourceConnector.syncTopicAcls end to end, with the source and target keeping ACLs as Kafka brokers
    with an authorizer do: the replicated topic's ACLs land on its remote topic (ALLOW WRITE left out, ALLOW
    ALL as ALLOW READ, DENY as is: MirrorSourceConnectorTest.testAclFiltering/testAclTransformation), an
    unreplicated topic's do not, and an ACL added later follows within the interval."""
    if broker.kind != "tansu":
        pytest.skip("the ACL-keeping proxy sits in front of a Tansu broker the harness starts")
    source_acls, target_acls = AclStore(), AclStore()
    source, target = start_counted_tansu("S", source_acls.answer), start_counted_tansu("T", target_acls.answer)
    try:
        t, other = f"o{unique}", f"p{unique}"
        create_topic(source.broker.bootstrap, t, 1)
        create_topic(source.broker.bootstrap, other, 1)
        admin = Admin({"bootstrap.servers": source.broker.bootstrap}, "S")
        admin.create_topic_acls([TopicAcl(t, "User:alice", "*", "READ", "ALLOW"),
                                 TopicAcl(t, "User:bob", "*", "WRITE", "ALLOW"),
                                 TopicAcl(t, "User:carol", "*", "ALL", "ALLOW"),
                                 TopicAcl(t, "User:eve", "10.0.0.1", "READ", "DENY"),
                                 TopicAcl(t, "User:mallory", "*", "ALL", "DENY"),
                                 TopicAcl(other, "User:alice", "*", "READ", "ALLOW")])
        cluster: Cluster = cluster_factory(on=broker_b)
        (w,) = cluster.start(1)
        config = mirror_source(source.broker, target.broker, {"topics": t, "sync.topic.acls.interval.seconds": "1"},
                               source="A")
        assert w.request("POST", "/connectors", {"name": "acls", "config": config}).status_code == 201

        def remote(principal: str, host: str, operation: int, permission: int) -> Binding:
            return Binding(2, f"A.{t}", 3, principal, host, operation, permission)  # TOPIC, LITERAL

        read, allow, deny, all_ops = 3, 3, 2, 2  # Kafka's wire codes
        expected = {remote("User:alice", "*", read, allow), remote("User:carol", "*", read, allow),
                    remote("User:eve", "10.0.0.1", read, deny), remote("User:mallory", "*", all_ops, deny)}
        wait_for(lambda: set(target_acls.bindings()) == expected, 30, f"the ACLs of A.{t} on the target")
        admin.create_topic_acls([TopicAcl(t, "User:dave", "*", "DESCRIBE", "ALLOW")])
        added = remote("User:dave", "*", 8, allow)  # DESCRIBE
        wait_for(lambda: set(target_acls.bindings()) == expected | {added}, 10, "the ACL added later")
        assert connector_running(w, "acls")
    finally:
        source.stop()
        target.stop()
