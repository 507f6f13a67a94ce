"""Which topic ACLs a MirrorSource flow copies, and how: the ACL cases of Kafka's MirrorSourceConnectorTest
(connect/mirror/src/test/java/org/apache/kafka/connect/mirror/MirrorSourceConnectorTest.java), against
connectors.mirror.acls' pure functions. The schedule and the broker without an authorizer are shown against
real brokers in tests/test_mirror_acls.py."""

from __future__ import annotations

from connectors.mirror.acls import acls_to_sync, should_replicate_acl, target_acl
from connectors.mirror.filters import DEFAULT_TOPICS_EXCLUDE, DefaultTopicFilter
from connectors.mirror.policy import DefaultReplicationPolicy, IdentityReplicationPolicy
from connectors.mirror.topics import TopicSelector
from pyconnect.kafka.admin import TopicAcl


def acl(operation: str, permission: str, topic: str = "test_topic") -> TopicAcl:
    return TopicAcl(topic, "kafka", "", operation, permission)


def test_acl_filtering() -> None:
    """MirrorSourceConnectorTest.testAclFiltering: ALLOW WRITE is not copied, ALLOW ALL is; and
    (MirrorSourceConnector.shouldReplicateAcl) every other binding, DENY WRITE included."""
    assert not should_replicate_acl(acl("WRITE", "ALLOW")), "should not replicate ALLOW WRITE"
    assert should_replicate_acl(acl("ALL", "ALLOW")), "should replicate ALLOW ALL"
    for operation in ("READ", "DESCRIBE", "ALTER", "DELETE", "CREATE", "DESCRIBE_CONFIGS", "ALTER_CONFIGS"):
        assert should_replicate_acl(acl(operation, "ALLOW")), operation
    for operation in ("WRITE", "ALL", "READ"):
        assert should_replicate_acl(acl(operation, "DENY")), f"DENY {operation}"


def test_acl_transformation() -> None:
    """MirrorSourceConnectorTest.testAclTransformation: the topic takes its remote name, ALLOW ALL becomes
    ALLOW READ, DENY ALL stays DENY ALL; principal and host are kept."""
    remote = DefaultReplicationPolicy().format_remote_topic("source", "test_topic")
    allow_all = target_acl(acl("ALL", "ALLOW"), remote)
    assert allow_all.topic == "source.test_topic", "should change topic name"
    assert allow_all.operation == "READ", "should change ALL to READ"
    assert allow_all.permission == "ALLOW", "should not change ALLOW"
    assert (allow_all.principal, allow_all.host) == ("kafka", "")
    deny_all = target_acl(acl("ALL", "DENY"), remote)
    assert deny_all.operation == "ALL", "should not change ALL"
    assert deny_all.permission == "DENY", "should not change DENY"
    assert target_acl(acl("DESCRIBE", "ALLOW"), remote) == acl("DESCRIBE", "ALLOW", "source.test_topic")


def test_only_replicated_topics_acls_are_copied_under_their_remote_names() -> None:
    """MirrorSourceConnector.syncTopicAcls: a binding is copied when its topic passes shouldReplicateTopic
    (the topic filter, heartbeats, no internal topics, no cycles: MirrorSourceConnectorTest.testNoCycles),
    under the replication policy's remote name."""
    policy = DefaultReplicationPolicy()
    selector = TopicSelector(policy, DefaultTopicFilter(["orders.*", "target\\..*", "__.*", "mm2.*"]), "target")
    source = [acl("READ", "ALLOW", "orders"), acl("ALL", "ALLOW", "orders-eu"), acl("WRITE", "ALLOW", "orders"),
              acl("WRITE", "DENY", "orders"), acl("READ", "ALLOW", "payments"),  # not selected by the filter
              acl("READ", "ALLOW", "target.orders"),  # a cycle: came from the target
              acl("READ", "ALLOW", "heartbeats"),  # replicated whatever the filter says
              acl("READ", "ALLOW", "__orders"), acl("READ", "ALLOW", "mm2-orders.internal")]  # internal topics
    copied = acls_to_sync(source, selector.should_replicate, lambda t: policy.format_remote_topic("source", t))
    assert copied == [acl("READ", "ALLOW", "source.orders"), acl("READ", "ALLOW", "source.orders-eu"),
                      acl("WRITE", "DENY", "source.orders"), acl("READ", "ALLOW", "source.heartbeats")]


def test_identity_policy_keeps_topic_names() -> None:
    """With IdentityReplicationPolicy the remote topic has the source topic's name, so do its ACLs."""
    policy = IdentityReplicationPolicy()
    selector = TopicSelector(policy, DefaultTopicFilter([".*"], DEFAULT_TOPICS_EXCLUDE), "target")
    copied = acls_to_sync([acl("ALL", "ALLOW", "orders")], selector.should_replicate,
                          lambda t: policy.format_remote_topic("source", t))
    assert copied == [acl("READ", "ALLOW", "orders")]


def test_nothing_to_copy_gives_an_empty_list() -> None:
    policy = DefaultReplicationPolicy()
    assert acls_to_sync([], lambda _t: True, lambda t: policy.format_remote_topic("source", t)) == []
    assert acls_to_sync([acl("WRITE", "ALLOW")], lambda _t: True, lambda t: t) == []
