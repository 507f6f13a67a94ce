"""Producer transactions (KIP-98) for exactly-once source tasks: each call's failure becomes one
`TransactionFailed` with a readable reason, and a fenced producer is told apart from a broken one.

Fencing an id is `init_transactions` by a new producer with that id: the broker bumps the id's epoch,
aborts the transaction the previous holder left open, and refuses every later write of that holder
(Kafka's Admin.fenceProducers does the same; confluent-kafka has no binding for it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import confluent_kafka as ck

from pyconnect.kafka.clients import KafkaClientError, new_producer
from pyconnect.kafka.errors import error_text

_FENCED = {ck.KafkaError._FENCED, ck.KafkaError.PRODUCER_FENCED, ck.KafkaError.INVALID_PRODUCER_EPOCH}


class TransactionFailed(Exception):
    """A transactional call failed; `fenced` when a newer producer with the same id took over."""

    def __init__(self, message: str, fenced: bool) -> None:
        super().__init__(message)
        self.fenced = fenced


def _call(what: str, transactional_id: str, call: Callable[[], Any]) -> None:
    try:
        call()
    except ck.KafkaException as exc:
        error = exc.args[0] if exc.args else None
        code = error.code() if isinstance(error, ck.KafkaError) else None
        text = error_text(exc)
        fenced = code in _FENCED
        reason = "fenced by a newer producer with the same transactional.id" if fenced else text
        raise TransactionFailed(f"{what} failed for transactional.id {transactional_id}: {reason}"
                                + (f" ({text})" if fenced else ""), fenced) from None


def init_transactions(producer: ck.Producer, transactional_id: str, timeout: float) -> None:
    """Register the producer's transactional.id with the broker (fencing any older holder)."""
    _call("Initializing transactions", transactional_id, lambda: producer.init_transactions(timeout))


def begin(producer: ck.Producer, transactional_id: str) -> None:
    _call("Beginning a transaction", transactional_id, producer.begin_transaction)


def commit(producer: ck.Producer, transactional_id: str, timeout: float) -> None:
    """Commit: flushes what is queued, then writes the commit markers."""
    _call("Committing the transaction", transactional_id, lambda: producer.commit_transaction(timeout))


def abort(producer: ck.Producer, transactional_id: str, timeout: float) -> None:
    _call("Aborting the transaction", transactional_id, lambda: producer.abort_transaction(timeout))


def fence(producer_conf: Mapping[str, str], transactional_ids: Iterable[str], timeout: float) -> None:
    """Fence every id: whatever an older holder of one of them writes afterwards never commits."""
    for transactional_id in transactional_ids:
        conf = {**producer_conf, "transactional.id": transactional_id, "enable.idempotence": "true"}
        try:
            producer = new_producer(conf)
        except KafkaClientError as exc:
            raise TransactionFailed(f"Fencing transactional.id {transactional_id} failed: {exc}", False) from None
        try:
            init_transactions(producer, transactional_id, timeout)
        finally:
            producer.flush(0)
