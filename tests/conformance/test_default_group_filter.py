"""DefaultGroupFilter (`groups` / `groups.exclude`). Kafka has no DefaultGroupFilterTest; its one group
filter case, MirrorCheckpointConfigTest.testGroupMatching, is ported in test_mirror_checkpoint_config.py."""

from __future__ import annotations

from connectors.mirror.config import CHECKPOINT, MirrorConfig
from connectors.mirror.filters import DefaultGroupFilter, GroupFilter


def group_filter(**props: str) -> GroupFilter:
    return MirrorConfig(CHECKPOINT, {"source.cluster.alias": "source1", **props}).group_filter()


def test_default_excludes() -> None:
    f = group_filter()
    assert f.should_replicate_group("orders-app")
    for group in ("console-consumer-123", "connect-mm", "__internal"):
        assert not f.should_replicate_group(group), group


def test_unconfigured_default_filter_matches_nothing() -> None:
    assert not DefaultGroupFilter().should_replicate_group("orders-app"), "as Kafka's, until configured"
