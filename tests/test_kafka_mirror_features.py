"""What a MirrorSourceConnector keeps in shape on the target that only a real Apache Kafka (4.x, two single-node
clusters, pyconnect.testing.kafka_jvm) can show: partition-count growth (CreatePartitions), topic-config sync
with real DescribeConfigs sources and defaults (`use.defaults.from=source` and `=target`), and topic ACL sync
against StandardAuthorizer.

Kafka's behaviour followed (connect/mirror MirrorSourceConnector): computeAndCreateTopicPartitions grows a remote
topic to the source's count; syncTopicConfigs sends, per replicated property that is not read-only, sensitive or
a static broker config of the source, SET of the source value, or DELETE where the source is at its default and
the ConfigPropertyFilter does not replicate source defaults (DefaultConfigPropertyFilter: `use.defaults.from`);
syncTopicAcls copies LITERAL TOPIC bindings of replicated topics except ALLOW WRITE, ALLOW ALL becoming ALLOW READ.
Ported cases: MirrorConnectorsIntegrationBaseTest.testReplicateSourceDefault and testSyncTopicConfigs (the
property filter and defaults), MirrorSourceConnectorTest.testAclFiltering and testAclTransformation.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka.admin import (  # type: ignore[attr-defined]
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
    NewPartitions,
    ResourcePatternType,
    ResourceType,
)

from pyconnect.testing.kafka_jvm import KafkaBroker
from tests.harness.connectors import all_running
from tests.harness.kafka_io import create_topic, produce, read_to_end
from tests.harness.kafka_pair import kafka_pair
from tests.harness.mirror import mirror_source
from tests.harness.workers import Cluster, WorkerProcess, wait_for

# Every PLAINTEXT client is User:ANONYMOUS, made a super user: the authorizer holds ACLs without refusing the
# test's own clients or the broker's controller connection.
AUTHORIZER = {"authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
              "super.users": "User:ANONYMOUS"}
ANY: Any = None  # an ACL filter's wildcard for a name, principal or host
TARGET_COMPRESSION = "gzip"  # B's static broker default, unlike A's (Kafka's default, `producer`)


@pytest.fixture(scope="module")
def clusters() -> Iterator[tuple[KafkaBroker, KafkaBroker]]:
    b_defaults = {**AUTHORIZER, "compression.type": TARGET_COMPRESSION}
    with kafka_pair("features", extra_a=AUTHORIZER, extra_b=b_defaults) as pair:
        yield pair


@pytest.fixture(scope="module")
def worker(clusters: tuple[KafkaBroker, KafkaBroker], tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[WorkerProcess]:
    cluster = Cluster(clusters[1], tmp_path_factory.mktemp("features"), f"features-{time.monotonic_ns()}")
    try:
        yield cluster.start(1)[0]
    finally:
        cluster.close()


def run_flow(w: WorkerProcess, clusters: tuple[KafkaBroker, KafkaBroker], name: str, topic: str,
             **overrides: str) -> None:
    config = mirror_source(*clusters, {"topics": topic, "tasks.max": "1", "sync.topic.acls.enabled": "false",
                                       **overrides})
    assert w.request("PUT", f"/connectors/{name}/config", config).status_code == 201
    wait_for(lambda: all_running(w, name, 1), 60, f"{name} RUNNING")


def described(bootstrap: str, topic: str) -> dict[str, tuple[str | None, str]]:
    """name -> (value, source) of `topic`'s configs, as DescribeConfigs answers (source as Kafka names it)."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    future = admin.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, topic)])
    entries = next(iter(future.values())).result(30)
    return {name: (e.value, ConfigSource(e.source).name) for name, e in entries.items()}


def alter(bootstrap: str, topic: str, op: AlterConfigOpType, name: str, value: str | None = None) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    entry = ConfigEntry(name, value, incremental_operation=op)
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=[entry])
    for future in admin.incremental_alter_configs([resource]).values():
        future.result(30)


def test_partitions_added_on_the_source_reach_the_target(clusters: tuple[KafkaBroker, KafkaBroker],
                                                        worker: WorkerProcess, unique: str) -> None:
    """A source topic grown from 2 to 5 partitions (CreatePartitions) is grown on the target at the next topic
    refresh, and records written to the new partitions are copied into the same partitions."""
    a, b = clusters
    topic = f"grow-{unique}"
    create_topic(a.bootstrap, topic, 2)
    run_flow(worker, clusters, "grow", topic)
    produce(a.bootstrap, topic, [(None, b"before")], partition=0)
    wait_for(lambda: read_to_end(b.bootstrap, f"A.{topic}"), 60, "the first copy on B")
    began = time.monotonic()
    admin = AdminClient({"bootstrap.servers": a.bootstrap})
    for future in admin.create_partitions([NewPartitions(topic, 5)]).values():
        future.result(30)
    for p in range(2, 5):
        produce(a.bootstrap, topic, [(None, f"new-{p}".encode())], partition=p)
    wanted = {(p, f"new-{p}".encode()) for p in range(2, 5)}
    copied = wait_for(lambda: wanted <= {(r[0], r[3]) for r in read_to_end(b.bootstrap, f"A.{topic}")}, 60,
                      "the new partitions' records in the same partitions on B", 0.5)
    print(f"\nPARTITIONS (Kafka {a.version}): source grown 2 -> 5; the target grown and 3 records of the new "
          f"partitions copied {time.monotonic() - began:.1f} s later")
    assert copied


def acl(topic: str, principal: str, operation: AclOperation, permission: AclPermissionType,
        pattern: ResourcePatternType = ResourcePatternType.LITERAL) -> AclBinding:
    return AclBinding(ResourceType.TOPIC, topic, pattern, principal, "*", operation, permission)


def topic_acls(bootstrap: str, topic: str) -> set[tuple[str, str, str, str]]:
    """(principal, host, operation, permission) of the LITERAL bindings of `topic`."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    flt = AclBindingFilter(ResourceType.TOPIC, topic, ResourcePatternType.LITERAL, ANY, ANY, AclOperation.ANY,
                           AclPermissionType.ANY)
    found = admin.describe_acls(flt).result(30)
    return {(x.principal, x.host, x.operation.name, x.permission_type.name) for x in found}


def test_topic_acls_are_synced_as_kafka_does(clusters: tuple[KafkaBroker, KafkaBroker], worker: WorkerProcess,
                                             unique: str) -> None:
    """On A with StandardAuthorizer: ALLOW READ, ALLOW ALL, ALLOW WRITE and DENY WRITE on the replicated topic, a
    PREFIXED binding, and a binding on a topic not replicated. On B the remote topic gets ALLOW READ, ALLOW ALL
    as ALLOW READ, and DENY WRITE; nothing else is copied."""
    a, b = clusters
    topic, other = f"acl-{unique}", f"unreplicated-{unique}"
    create_topic(a.bootstrap, topic, 1)
    create_topic(a.bootstrap, other, 1)
    bindings = [acl(topic, "User:alice", AclOperation.READ, AclPermissionType.ALLOW),
                acl(topic, "User:bob", AclOperation.ALL, AclPermissionType.ALLOW),
                acl(topic, "User:carol", AclOperation.WRITE, AclPermissionType.ALLOW),
                acl(topic, "User:dave", AclOperation.WRITE, AclPermissionType.DENY),
                acl(topic, "User:erin", AclOperation.READ, AclPermissionType.ALLOW, ResourcePatternType.PREFIXED),
                acl(other, "User:frank", AclOperation.READ, AclPermissionType.ALLOW)]
    admin = AdminClient({"bootstrap.servers": a.bootstrap})  # held until the futures resolve
    for future in admin.create_acls(bindings).values():
        future.result(30)
    began = time.monotonic()
    run_flow(worker, clusters, "acls", topic, **{"sync.topic.acls.enabled": "true",
                                                 "sync.topic.acls.interval.seconds": "2"})
    expected = {("User:alice", "*", "READ", "ALLOW"), ("User:bob", "*", "READ", "ALLOW"),
                ("User:dave", "*", "WRITE", "DENY")}
    found: set[tuple[str, str, str, str]] = wait_for(lambda: (lambda got: got if got >= expected else set())(
        topic_acls(b.bootstrap, f"A.{topic}")), 60, "the ACLs of the remote topic on B", 0.5)
    print(f"\nACLS (Kafka {a.version}, StandardAuthorizer): 6 bindings on A, {len(found)} on B's A.{topic} "
          f"within {time.monotonic() - began:.1f} s: {sorted(found)}")
    assert found == expected
    assert topic_acls(b.bootstrap, f"A.{other}") == set()
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    prefixed = AclBindingFilter(ResourceType.TOPIC, ANY, ResourcePatternType.PREFIXED, ANY, ANY, AclOperation.ANY,
                                AclPermissionType.ANY)
    assert admin.describe_acls(prefixed).result(30) == [], "PREFIXED bindings are not copied"


def remote_shape(b: KafkaBroker, remote: str) -> dict[str, tuple[str | None, str]]:
    configs = described(b.bootstrap, remote)
    return {name: configs[name] for name in ("compression.type", "max.message.bytes", "segment.ms")}


@pytest.mark.parametrize("defaults_from", ["target", "source"])
def test_topic_configs_sync_as_kafka_does(clusters: tuple[KafkaBroker, KafkaBroker], worker: WorkerProcess,
                                          defaults_from: str, unique: str) -> None:
    """A's topic overrides max.message.bytes; compression.type and segment.ms are at Kafka's defaults there, while
    B's broker default of compression.type is gzip. The remote topic gets the override, and the source's defaults
    only with use.defaults.from=source (else B's own). Then the override changes (synced), an operator overrides
    segment.ms on the remote topic, and A's override is deleted: with `target` both are reset on B to B's defaults
    (Kafka's DELETE), with `source` both are set to A's defaults."""
    a, b = clusters
    topic, remote = f"cfg-{defaults_from}-{unique}", f"A.cfg-{defaults_from}-{unique}"
    create_topic(a.bootstrap, topic, 1, {"max.message.bytes": "200000"})
    source = described(a.bootstrap, topic)
    run_flow(worker, clusters, f"cfg-{defaults_from}", topic, **{"use.defaults.from": defaults_from})
    own = defaults_from == "target"
    compression = (TARGET_COMPRESSION, "STATIC_BROKER_CONFIG") if own else (source["compression.type"][0],
                                                                             "DYNAMIC_TOPIC_CONFIG")
    segment = (source["segment.ms"][0], "DEFAULT_CONFIG" if own else "DYNAMIC_TOPIC_CONFIG")
    began = time.monotonic()
    created = {"compression.type": compression, "max.message.bytes": ("200000", "DYNAMIC_TOPIC_CONFIG"),
               "segment.ms": segment}
    shapes = [reaches(b, remote, created, 60, "the remote topic created as Kafka's")]
    alter(a.bootstrap, topic, AlterConfigOpType.SET, "max.message.bytes", "300000")
    changed = {**created, "max.message.bytes": ("300000", "DYNAMIC_TOPIC_CONFIG")}
    shapes.append(reaches(b, remote, changed, 30, "the changed override synced"))
    alter(b.bootstrap, remote, AlterConfigOpType.SET, "segment.ms", "3600000")
    alter(a.bootstrap, topic, AlterConfigOpType.DELETE, "max.message.bytes")
    default_size = source_default(a, topic, "max.message.bytes")
    reset = {**created, "max.message.bytes": (default_size, "DEFAULT_CONFIG" if own else "DYNAMIC_TOPIC_CONFIG")}
    shapes.append(reaches(b, remote, reset, 30, "the deleted override and B's own reset"))
    print(f"\nTOPIC CONFIGS use.defaults.from={defaults_from} (Kafka {a.version}): created, changed and reset as "
          f"Kafka's MirrorSourceConnector does in {time.monotonic() - began:.1f} s: {shapes}")


def reaches(b: KafkaBroker, remote: str, wanted: dict[str, tuple[str | None, str]], timeout: float, what: str
            ) -> dict[str, tuple[str | None, str]]:
    """`remote`'s (value, source) of the three properties once they are `wanted`; fails showing the last seen."""
    deadline, shape = time.monotonic() + timeout, {}
    while time.monotonic() < deadline:
        try:
            shape = remote_shape(b, remote)
        except Exception as exc:  # the remote topic does not exist yet  # noqa: BLE001
            shape = {"error": (str(exc), "")}
        if shape == wanted:
            return shape
        time.sleep(0.5)  # the poll interval of a wait under a deadline
    raise AssertionError(f"timed out after {timeout} s waiting for {what}: wanted {wanted}, last seen {shape}")


def source_default(a: KafkaBroker, topic: str, name: str) -> str | None:
    """`name`'s value on A once A reports it at its default (after the DELETE has landed)."""
    return wait_for(lambda: (lambda v: v[0] if v[1] == "DEFAULT_CONFIG" else None)(described(a.bootstrap, topic)[name]),
                    30, f"{name} back at its default on A")
