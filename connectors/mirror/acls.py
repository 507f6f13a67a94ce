"""Topic ACL sync of a MirrorSource flow (Kafka's MirrorSourceConnector.syncTopicAcls, compat-spec §C.7).

On `sync.topic.acls.enabled` the connector reads the source cluster's topic ACLs once at start and then
every `sync.topic.acls.interval.seconds`, and creates their counterparts on the remote topics.

Invariants:
- only LITERAL TOPIC bindings are read, and only those naming a topic the flow replicates (the flow's
  TopicSelector: topic filter, heartbeats, no internal topics, no cycles) are copied, under the remote
  topic's name (the replication policy's format_remote_topic);
- ALLOW WRITE is never copied (only the replication writes remote topics); ALLOW ALL is copied as ALLOW
  READ; every other binding, DENY ones included, is copied unchanged but for its topic name;
- the target is asked only when there is something to create, and never when the source could not be read;
- a source without an authorizer is said once at INFO with the advice to turn the sync off, and at DEBUG on
  every later round; the schedule goes on (an authorizer may be enabled later) and the connector keeps running,
  as Kafka's does on SECURITY_DISABLED. librdkafka drops the error code of a DescribeAcls answer, so such a
  source reads as one without ACLs: on the first empty answer the source's broker config authorizer.class.name
  is asked, once per connector start unless that read fails ("" on a Kafka broker without authorizer; a broker
  that does not report the config is taken to have one);
- a failed read or write is logged and retried on the next round.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from connectors.mirror.topics import TopicSelector
from pyconnect.kafka.admin import Admin, TopicAcl, UnsupportedByBroker
from pyconnect.kafka.clients import KafkaClientError

log = logging.getLogger(__name__)
NO_AUTHORIZER = ("No ACL authorizer is configured on the source cluster %s, so no topic ACL syncing will take place. "
                 "Consider disabling topic ACL syncing by setting sync.topic.acls.enabled to 'false'.")
STILL_NO_AUTHORIZER = "Source-side ACL authorizer still not found on %s; skipping topic ACL sync"


def should_replicate_acl(acl: TopicAcl) -> bool:
    """Every binding but ALLOW WRITE (MirrorSourceConnector.shouldReplicateAcl)."""
    return not (acl.permission == "ALLOW" and acl.operation == "WRITE")


def target_acl(acl: TopicAcl, remote_topic: str) -> TopicAcl:
    """The binding for the remote topic: ALLOW ALL becomes ALLOW READ, anything else keeps its entry
    (MirrorSourceConnector.targetAclBinding)."""
    operation = "READ" if acl.permission == "ALLOW" and acl.operation == "ALL" else acl.operation
    return TopicAcl(remote_topic, acl.principal, acl.host, operation, acl.permission)


def acls_to_sync(bindings: Iterable[TopicAcl], replicates: Callable[[str], bool],
                 remote: Callable[[str], str]) -> list[TopicAcl]:
    """The target bindings for the source's LITERAL TOPIC `bindings`: those `should_replicate_acl` keeps, on
    topics `replicates` accepts, transformed by `target_acl` with the topic name `remote` gives."""
    return [target_acl(b, remote(b.topic)) for b in bindings if should_replicate_acl(b) and replicates(b.topic)]


class TopicAclSync:
    """One flow's ACL sync: reads the source's topic ACLs and creates their remote counterparts."""

    def __init__(self, source: Admin, target: Admin, selector: TopicSelector, source_alias: str) -> None:
        self.source, self.target, self.selector, self.alias = source, target, selector, source_alias
        self.no_authorizer: bool | None = None  # unknown until the source first answered no ACLs
        self._unsupported = False

    def _describe(self) -> list[TopicAcl] | None:
        """The source's topic ACLs, or None (said in the log) when they cannot be read this round."""
        try:
            return self.source.describe_topic_acls()
        except UnsupportedByBroker as exc:  # a broker without the ACL APIs: no Kafka broker, so said once
            log.log(logging.DEBUG if self._unsupported else logging.WARNING, "topic ACL sync skipped: %s", exc)
            self._unsupported = True
        except (KafkaClientError, TimeoutError) as exc:
            log.warning("topic ACL sync: could not describe the ACLs of cluster %s (retried in the next round): %s",
                        self.alias, exc)
        return None

    def _without_authorizer(self) -> bool:
        """Whether the source has no authorizer (asked once, on its first empty answer; see the module's
        docstring): said at INFO the first time, at DEBUG after."""
        if self.no_authorizer is None:
            try:
                self.no_authorizer = self.source.broker_config("authorizer.class.name") == ""
            except (KafkaClientError, TimeoutError) as exc:
                log.debug("could not read authorizer.class.name of cluster %s (asked again next round): %s",
                          self.alias, exc)
                return False
            if self.no_authorizer:
                log.info(NO_AUTHORIZER, self.alias)
            return self.no_authorizer
        if self.no_authorizer:
            log.debug(STILL_NO_AUTHORIZER, self.alias)
        return self.no_authorizer

    def sync(self) -> int:
        """One round: returns how many bindings were sent to the target (0 if none, if the source could not
        be read or has no authorizer)."""
        bindings = self._describe()
        if bindings is None or (not bindings and self._without_authorizer()):
            return 0
        wanted = acls_to_sync(bindings, self.selector.should_replicate,
                              lambda t: self.selector.policy.format_remote_topic(self.alias, t))
        log.debug("syncing %d topic ACL binding(s) of %d read from %s", len(wanted), len(bindings), self.alias)
        if not wanted:
            return 0
        try:
            self.target.create_topic_acls(wanted)
        except (KafkaClientError, TimeoutError) as exc:
            log.warning("topic ACL sync to the target failed (retried in the next round): %s", exc)
        return len(wanted)
