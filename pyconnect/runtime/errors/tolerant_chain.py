"""A transformation chain applied under a connector's error handling: each stage is one TRANSFORMATION step
of Connect's RetryWithToleranceOperator, named by its transform's (Java) class in error reports."""

from __future__ import annotations

from collections.abc import Callable

from pyconnect.api.connect_record import ConnectRecord
from pyconnect.runtime.errors import ProcessingContext, Stage, ToleranceOperator
from pyconnect.transforms.chain import TransformationChain, TransformationStage
from pyconnect.transforms.registry import java_name


def apply_tolerantly(chain: TransformationChain, record: ConnectRecord, errors: ToleranceOperator,
                     context: ProcessingContext) -> ConnectRecord | None:
    """The record through every stage, or None when a stage dropped it or failed within tolerance (a failure
    beyond tolerance raises)."""
    current = record
    for stage in chain.stages:
        result = errors.execute(Stage.TRANSFORMATION, java_name(type(stage.transformation)), _step(stage, current),
                                context)
        if result is None:
            return None
        current = result
    return current


def _step(stage: TransformationStage, record: ConnectRecord) -> Callable[[], ConnectRecord | None]:
    return lambda: stage.apply(record)
