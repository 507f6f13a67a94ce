"""Applying transforms in order (Connect's TransformationStage and TransformationChain)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pyconnect.transforms.record import ConnectRecord
from pyconnect.transforms.spi import Predicate, Transformation


@dataclass
class TransformationStage:
    """One transform, applied when its predicate (if any) says so: a record is transformed when there
    is no predicate, or when `predicate.test(record)` differs from `negate`."""

    transformation: Transformation
    predicate: Predicate | None = None
    negate: bool = False
    alias: str = ""

    @property
    def transform_class(self) -> type[Transformation]:
        return type(self.transformation)

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        if self.predicate is None or self.negate != self.predicate.test(record):
            return self.transformation.apply(record)
        return record

    def close(self) -> None:
        self.transformation.close()
        if self.predicate is not None:
            self.predicate.close()


class TransformationChain:
    """The stages of a connector, in the order of its `transforms` list; a stage that returns None
    drops the record and the rest of the chain is skipped."""

    def __init__(self, stages: Sequence[TransformationStage] = ()) -> None:
        self.stages = list(stages)

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        current: ConnectRecord | None = record
        for stage in self.stages:
            if current is None:
                break
            current = stage.apply(current)
        return current

    def close(self) -> None:
        for stage in self.stages:
            stage.close()

    def __len__(self) -> int:
        return len(self.stages)
