"""Transforms between a source task's poll and the producer (Connect's TransformationChain in
WorkerSourceTask): each SourceRecord becomes the ConnectRecord the transforms see, and back.

A record the chain drops is not produced, but its source offset still becomes committable, as in
Connect (`recordDropped`), so the task does not poll it again after a restart. Transforms may send a
record anywhere (RegexRouter renames topics), so a task with transforms always gets the per-record
delivery strategy.
"""

from __future__ import annotations

from typing import Any

import orjson

from pyconnect.api.connector import SourceTask
from pyconnect.api.records import SourceRecord
from pyconnect.runtime.delivery import DeliveryContext, GenericDelivery
from pyconnect.transforms.chain import TransformationChain
from pyconnect.transforms.record import ConnectRecord, Header, Headers


def header_bytes(value: Any) -> bytes | None:
    """A header value as SimpleHeaderConverter writes it: text as UTF-8, booleans as Java prints them."""
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, bool):
        return b"true" if value else b"false"
    if isinstance(value, str | int | float):
        return str(value).encode()
    return orjson.dumps(value)


def to_connect(record: SourceRecord) -> ConnectRecord:
    headers = Headers(Header(k, v) for k, v in record.headers or ())
    return ConnectRecord(record.topic, record.partition, None, record.key, None, record.value, record.timestamp,
                         headers)


def to_source(original: SourceRecord, record: ConnectRecord) -> SourceRecord:
    headers = [(h.key, header_bytes(h.value)) for h in record.headers]
    return SourceRecord(original.source_partition, original.source_offset, record.topic or original.topic,
                        record.value, record.key, record.kafka_partition, record.timestamp, headers or None)


class TransformingDelivery(GenericDelivery):
    """GenericDelivery of what the chain makes of each polled record."""

    def __init__(self, task: SourceTask, context: DeliveryContext, chain: TransformationChain) -> None:
        super().__init__(task, context)
        self._chain = chain

    def poll(self) -> list[SourceRecord] | None:
        records = self._task.poll()
        if not records:
            return records
        out = []
        for record in records:
            transformed = self._chain.apply(to_connect(record))
            if transformed is None:
                self.acks.skip(record)
            else:
                out.append(to_source(record, transformed))
        return out
