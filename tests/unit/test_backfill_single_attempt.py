"""The backfill's exactly-once copy rests on one Spark attempt per range (connectors/mirror/backfill_task.py):
Spark settings that would run a range a second time are refused on their key when the connector is validated
(REST 400, `replikafka backfill` exit 2), not applied and not silently overridden."""

from __future__ import annotations

import pytest

from connectors.mirror.source_connector import MirrorSourceConnector

BASE = {"connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector", "source.cluster.alias": "A",
        "target.cluster.alias": "B", "source.cluster.bootstrap.servers": "127.0.0.1:1",
        "target.cluster.bootstrap.servers": "127.0.0.1:1", "backfill.enabled": "true"}


def errors(extra: dict[str, str]) -> dict[str, list[str]]:
    values = MirrorSourceConnector().validate({**BASE, **extra})
    return {key: value.errors for key, value in values.items() if value.errors}


@pytest.mark.parametrize(("key", "value", "words"), [
    ("spark.speculation", "true", "speculative tasks would let Spark run a range twice"),
    ("spark.speculation", "TRUE", "leave it false"),
    ("spark.task.maxFailures", "4", "retries would let Spark run a range twice"),
    ("spark.master", "local[4,3]", "local[N,F] with F > 1 retries failed tasks"),
    ("spark.master", "local[*, 2]", "use local[N]"),
])
def test_a_second_attempt_is_refused_on_its_key(key: str, value: str, words: str) -> None:
    found = errors({key: value})
    assert list(found) == [key] and len(found[key]) == 1 and words in found[key][0], found


@pytest.mark.parametrize("extra", [{}, {"spark.speculation": "false", "spark.task.maxFailures": "1"},
                                   {"spark.master": "local[4]"}, {"spark.master": "local[4,1]"},
                                   {"spark.master": "spark://127.0.0.1:7077"}])
def test_single_attempt_settings_are_accepted(extra: dict[str, str]) -> None:
    assert errors(extra) == {}
