"""CPU per record of provenance headers, without brokers: the decision and re-heading of consumed
messages (`ProvenanceFilter.pieces`) and the producer's cost of one more header.

    python bench/provenance_micro_bench.py

Real `confluent_kafka.Message`s (20,000 per case, best of 5); the producer points at a closed port
with a large queue, so `produce()` only enqueues (what the task's thread pays per record).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import confluent_kafka as ck  # noqa: E402

from connectors.mirror.provenance import HEADER, ProvenanceFilter  # noqa: E402

SOURCE, TARGET = "MkU3OEVBNTcwNTJENDM2Qk", "AbCdEfGhIjKlMnOpQrStUv"  # Kafka-shaped cluster ids
N = 20_000


def pieces_cost(headers: list[tuple[str, bytes]] | None) -> float:
    best = float("inf")
    for _ in range(5):
        f = ProvenanceFilter(SOURCE, TARGET)
        messages = [ck.Message(topic="t", partition=0, offset=i, value=b"x" * 512, headers=headers)
                    for i in range(N)]
        started = time.perf_counter()
        f.pieces(messages)
        best = min(best, time.perf_counter() - started)
    return best / N * 1e6


def produce_cost(headers: list[tuple[str, bytes]] | None) -> float:
    producer = ck.Producer({"bootstrap.servers": "127.0.0.1:1", "queue.buffering.max.messages": 2_000_000,
                            "queue.buffering.max.kbytes": 2_097_151, "linger.ms": 100_000, "log_level": 0})
    best = float("inf")
    for _ in range(5):
        started = time.process_time()
        for _ in range(N):
            producer.produce("t", b"x" * 512, b"k", 0, headers=headers)
        best = min(best, time.process_time() - started)
        producer.purge()
    return best / N * 1e6


def main() -> None:
    stamped = [(HEADER, f"1;{SOURCE};{TARGET}".encode())]
    cases = {"no headers (gets a new header)": None, "two application headers": [("h", b"1"), ("src", b"t")],
             "a copy, its path extended": [(HEADER, f"1;OtherClusterIdAAAAAAAA;{SOURCE}".encode())],
             "a copy that passed the target (skipped)": [(HEADER, f"1;{TARGET};{SOURCE}".encode())]}
    for name, headers in cases.items():
        print(f"pieces, {name}: {pieces_cost(headers):.2f} us a record")
    plain, with_header = produce_cost(None), produce_cost(stamped)
    print(f"produce: {plain:.2f} us without headers, {with_header:.2f} us with the provenance header "
          f"(+{with_header - plain:.2f} us)")


if __name__ == "__main__":
    main()
