"""The Spark backfill on a real Spark standalone cluster: a master and one worker from
the installed pyspark, executors in their own JVMs and Python workers, against real brokers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.harness.backfill import backfill_then_streaming, own_brokers
from tests.harness.brokers import Broker

pytest.importorskip("pyspark")
broker, broker_b = own_brokers()
from tests.harness.spark_standalone import SparkCluster, start_spark_cluster  # noqa: E402


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkCluster]:
    cluster = start_spark_cluster(tmp_path_factory.mktemp("spark"))
    yield cluster
    cluster.stop()


def test_backfill_on_a_standalone_cluster_is_exact_and_hands_over(
        spark: SparkCluster, cluster_factory: Any, broker: Broker, broker_b: Broker, unique: str) -> None:
    """A backfill with spark.master=spark://... copies every planned range byte for byte and in order,
    hands every partition over to streaming (records produced meanwhile arrive once), and a group
    committed inside the copied range translates exactly."""

    def fail_fast(status: dict[str, Any]) -> None:
        bad = [task for task in status["tasks"] if task["state"] == "FAILED"]
        if bad:
            pytest.fail(f"{bad[0].get('trace', '')[-3000:]}\nexecutors:\n{spark.executor_logs()[-6000:]}")

    done = backfill_then_streaming(cluster_factory, broker, broker_b, f"bfc{unique}", 4, 20_000, 2_000,
                                   spark.driver_settings(), fail_fast, quiet=4)
    # the copy ran on the cluster: the master completed our application, and its executor left a log
    apps = [a for a in spark.completed_apps() if str(a.get("name", "")).startswith("pyconnect-backfill-A-B")]
    assert apps, spark.state()
    assert list(spark.work_dir.glob(f"{apps[-1]['id']}/*/stderr")), "no executor ran on the worker"
    print(f"on {spark.master_url} in {done.seconds:.1f} s")
