"""One MirrorSource task with schema replication on vs off, on the same two local brokers, in one run.

    python bench/schema_replication_bench.py [--records 200000] [--size 256] [--partitions 4] [--rounds 2]

Two real registries (Apicurio Registry, pyconnect/testing/apicurio.py; `bash scripts/fetch-apicurio.sh` once)
and the test harness's brokers (bench_brokers.py). Every record is in Confluent's wire format with the id of an
Avro schema of the source registry; the target registry holds other schemas first, so that every record's id
is rewritten (the costly case: a new value per record). Each round copies a backlog of the same shape with the
switch off and then on (mirror_source_bench.mirror_task: the real SourceTaskRunner); the medians and their
ratio are printed (the first schema lookups, a few registry round trips, are inside the timed window).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_brokers import broker_label, start_pair  # noqa: E402
from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient  # noqa: E402
from mirror_source_bench import PRODUCER, mirror_task  # noqa: E402

from pyconnect.testing.apicurio import start_apicurio  # noqa: E402

AVRO = json.dumps({"type": "record", "name": "Bench", "namespace": "replikafka.bench",
                   "fields": [{"name": "payload", "type": "bytes"}]})


def fill(bootstrap: str, topic: str, n: int, size: int, partitions: int, schema_id: int) -> None:
    """`n` records: the wire format's zero byte and 4-byte id, then `size` payload bytes."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for fut in admin.create_topics([NewTopic(topic, partitions, 1)]).values():
        fut.result(30)
    value = b"\x00" + schema_id.to_bytes(4, "big") + (bytes(range(256)) * (size // 256 + 1))[:size]
    producer = Producer({"bootstrap.servers": bootstrap, **PRODUCER})
    for i in range(n):
        while True:
            try:
                producer.produce(topic, value, key=b"k%d" % (i % 1000), partition=i % partitions)
                break
            except BufferError:
                producer.poll(0.01)
    assert producer.flush(120) == 0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=200_000)
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    (a, b), (src, dst) = start_pair("schema"), start_apicurio("bench-source", "bench-target")
    try:
        target = SchemaRegistryClient({"url": dst.url})
        for i in range(5):
            target.register_schema(f"other-{i}-value", Schema(AVRO.replace("Bench", f"Other{i}"), "AVRO"))
        rates: dict[str, list[float]] = {"off": [], "on": []}
        for _ in range(args.rounds):
            for mode in ("off", "on"):
                topic = f"srb{uuid.uuid4().hex[:8]}"
                schema_id = SchemaRegistryClient({"url": src.url}).register_schema(f"{topic}-value",
                                                                                 Schema(AVRO, "AVRO"))
                fill(a.bootstrap, topic, args.records, args.size, args.partitions, schema_id)
                extra = {} if mode == "off" else {
                    "schema.replication.enabled": "true", "source.cluster.schema.registry.url": src.url,
                    "target.cluster.schema.registry.url": dst.url}
                rate = mirror_task(a.bootstrap, b.bootstrap, topic, args.records, args.partitions, extra=extra)
                rates[mode].append(rate)
                print(f"{mode}: {rate:,.0f} rec/s", flush=True)
        off, on = statistics.median(rates["off"]), statistics.median(rates["on"])
        print(f"{broker_label(a)}: {args.records:,} records of {args.size} B, {args.partitions} partitions: "
              f"schema replication off {off:,.0f} rec/s, on {on:,.0f} rec/s, ratio {on / off:.2f}")
    finally:
        for registry in (src, dst):
            registry.stop()
        for broker in (a, b):
            broker.stop()


if __name__ == "__main__":
    main()
