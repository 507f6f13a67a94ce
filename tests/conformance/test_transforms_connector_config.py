"""Port of the transform and predicate cases of Kafka's ConnectorConfigTest (connect/runtime): the keys
`transforms`/`predicates` add, their validation messages, and the stages they build."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import Any

import pytest

from pyconnect.api.config import ConfigDef, ConfigException, ConfigKey, ConfigType, at_least
from pyconnect.transforms import ConnectRecord, Predicate, Transformation, build_chain, enrich, validate

HERE = __name__
DUMMY = ConnectRecord(None, 0, timestamp=0)


class SimpleTransformation(Transformation):
    """Sets the partition to its `magic.number` (at least 42)."""

    def __init__(self) -> None:
        self.magic = 0

    def config_def(self) -> ConfigDef:
        return ConfigDef([ConfigKey("magic.number", ConfigType.INT, validator=at_least(42))])

    def configure(self, config: Mapping[str, Any]) -> None:
        self.magic = int(config["magic.number"])

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        return record.new_record(topic=None, kafka_partition=self.magic, key=None, value=None, timestamp=0)

    def close(self) -> None:
        self.magic = 0


class TestPredicate(Predicate):
    """Matches records of partition `int` (at least 80, default 80)."""

    __test__ = False  # not a pytest class

    def __init__(self) -> None:
        self.param = 0

    def config_def(self) -> ConfigDef:
        return ConfigDef([ConfigKey("int", ConfigType.INT, 80, validator=at_least(80))])

    def configure(self, config: Mapping[str, Any]) -> None:
        self.param = int(config["int"])

    def test(self, record: ConnectRecord) -> bool:
        return record.kafka_partition == self.param


class AbstractTransformation(Transformation):
    """Abstract: defines nothing."""


class AbstractTestPredicate(Predicate):
    """Abstract: defines nothing."""


class AbstractKeyValueTransformation(Transformation):
    """Abstract with two concrete subclasses, as Connect's `$Key`/`$Value` pairs."""

    def config_def(self) -> ConfigDef:
        return ConfigDef()

    def configure(self, config: Mapping[str, Any]) -> None:
        pass

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        return None

    @abstractmethod
    def side(self) -> str: ...


class KeyTransformation(AbstractKeyValueTransformation):
    def side(self) -> str:
        return "key"


class ValueTransformation(AbstractKeyValueTransformation):
    def side(self) -> str:
        return "value"


A = {"transforms": "a", "transforms.a.type": f"{HERE}.SimpleTransformation", "transforms.a.magic.number": "42"}
PRED = {**A, "transforms.a.predicate": "my-pred", "predicates": "my-pred",
        "predicates.my-pred.type": f"{HERE}.TestPredicate", "predicates.my-pred.int": "84"}


def config(**keys: str) -> dict[str, str]:
    return {"name": "test", "connector.class": "TestConnector", **keys}


def fails(cfg: Mapping[str, str]) -> str:
    with pytest.raises(ConfigException) as caught:
        build_chain(cfg)
    return str(caught.value)


@pytest.mark.kafka("ConnectorConfigTest.noTransforms")
def test_no_transforms() -> None:
    assert len(build_chain(config())) == 0


@pytest.mark.kafka("ConnectorConfigTest.danglingTransformAlias")
def test_dangling_transform_alias() -> None:
    assert "Not a Transformation" in fails(config(transforms="dangler"))


@pytest.mark.kafka("ConnectorConfigTest.wrongTransformationType")
def test_wrong_transformation_type() -> None:
    message = fails({"transforms": "a", "transforms.a.type": "uninstantiable"})
    assert "Class uninstantiable could not be found" in message


@pytest.mark.kafka("ConnectorConfigTest.unconfiguredTransform")
def test_unconfigured_transform() -> None:
    cfg = {k: v for k, v in A.items() if k != "transforms.a.magic.number"}
    assert 'Missing required configuration "transforms.a.magic.number" which' in fails(cfg)


@pytest.mark.kafka("ConnectorConfigTest.misconfiguredTransform")
def test_misconfigured_transform() -> None:
    assert "Value must be at least 42" in fails({**A, "transforms.a.magic.number": "40"})


@pytest.mark.kafka("ConnectorConfigTest.singleTransform")
def test_single_transform() -> None:
    chain = build_chain(config(**A))
    assert len(chain) == 1 and chain.stages[0].transform_class is SimpleTransformation
    out = chain.stages[0].apply(DUMMY)
    assert out is not None and out.kafka_partition == 42


@pytest.mark.kafka("ConnectorConfigTest.multipleTransformsOneDangling")
def test_multiple_transforms_one_dangling() -> None:
    fails({**A, "transforms": "a, b"})


@pytest.mark.kafka("ConnectorConfigTest.multipleTransforms")
def test_multiple_transforms() -> None:
    chain = build_chain({**A, "transforms": "a, b", "transforms.b.type": f"{HERE}.SimpleTransformation",
                         "transforms.b.magic.number": "84"})
    assert [stage.apply(DUMMY).kafka_partition for stage in chain.stages] == [42, 84]  # type: ignore[union-attr]


@pytest.mark.kafka("ConnectorConfigTest.abstractTransform")
def test_abstract_transform() -> None:
    message = fails({"transforms": "a", "transforms.a.type": f"{HERE}.AbstractTransformation"})
    assert "Transformation is abstract and cannot be created." in message


@pytest.mark.kafka("ConnectorConfigTest.abstractKeyValueTransform")
def test_abstract_key_value_transform() -> None:
    message = fails({"transforms": "a", "transforms.a.type": f"{HERE}.AbstractKeyValueTransformation"})
    assert "Transformation is abstract and cannot be created. Did you mean" in message
    assert f"{HERE}.KeyTransformation" in message and f"{HERE}.ValueTransformation" in message


@pytest.mark.kafka("ConnectorConfigTest.wrongPredicateType")
def test_wrong_predicate_type() -> None:
    message = fails({**PRED, "predicates.my-pred.type": f"{HERE}.SimpleTransformation"})
    assert f"Class {HERE}.SimpleTransformation does not implement the Predicate interface" in message


def assert_stage_with_predicate(cfg: Mapping[str, str], negated: bool) -> None:
    chain = build_chain(cfg)
    assert len(chain) == 1
    stage = chain.stages[0]
    assert stage.apply(DUMMY).kafka_partition == (42 if negated else 0)  # type: ignore[union-attr]
    matching = DUMMY.new_record(kafka_partition=84)
    assert stage.apply(matching).kafka_partition == (84 if negated else 42)  # type: ignore[union-attr]
    assert stage.transform_class is SimpleTransformation
    stage.close()


@pytest.mark.kafka("ConnectorConfigTest.singleConditionalTransform")
def test_single_conditional_transform() -> None:
    assert_stage_with_predicate({**PRED, "transforms.a.negate": "true"}, negated=True)


@pytest.mark.kafka("ConnectorConfigTest.predicateNegationDefaultsToFalse")
def test_predicate_negation_defaults_to_false() -> None:
    assert_stage_with_predicate(PRED, negated=False)


@pytest.mark.kafka("ConnectorConfigTest.abstractPredicate")
def test_abstract_predicate() -> None:
    message = fails({**PRED, "predicates.my-pred.type": f"{HERE}.AbstractTestPredicate"})
    assert "Predicate is abstract and cannot be created" in message


@pytest.mark.kafka("ConnectorConfigTest.misconfiguredPredicate")
def test_misconfigured_predicate() -> None:
    assert "Value must be at least 80" in fails({**PRED, "transforms.a.negate": "true", "predicates.my-pred.int": "79"})


@pytest.mark.kafka("ConnectorConfigTest.missingPredicateAliasProperty")
def test_missing_predicate_alias_property() -> None:
    cfg = {k: v for k, v in PRED.items() if k != "predicates"}
    assert not validate(cfg).errors  # the config is valid, as in Connect ...
    # ... but the predicate, not listed in `predicates`, is no known key when the stages are built.
    assert fails(cfg) == "Unknown configuration 'predicates.my-pred.type'"


@pytest.mark.kafka("ConnectorConfigTest.missingPredicateConfig")
def test_missing_predicate_config() -> None:
    cfg = {k: v for k, v in PRED.items() if not k.startswith("predicates.")}
    assert "Not a Predicate" in fails(cfg)


@pytest.mark.kafka("ConnectorConfigTest.negatedButNoPredicate")
def test_negated_but_no_predicate() -> None:
    message = fails({**A, "transforms.a.negate": "true"})
    assert "there is no config 'transforms.a.predicate' defining a predicate to be negated" in message


class HasDuplicateConfigTransformation(SimpleTransformation):
    def config_def(self) -> ConfigDef:
        return ConfigDef([ConfigKey("predicate", ConfigType.INT), ConfigKey("negate", ConfigType.INT, 123),
                          ConfigKey("must.exist.key", ConfigType.BOOLEAN, True)])


@pytest.mark.kafka("ConnectorConfigTest.testEnrichedConfigDef")
def test_enriched_config_def() -> None:
    prefix = "transforms.hdt."
    keys = enrich({"transforms": "hdt", prefix + "type": f"{HERE}.HasDuplicateConfigTransformation"}).keys
    for name, expected in (("must.exist.key", ConfigType.BOOLEAN), ("predicate", ConfigType.STRING),
                           ("negate", ConfigType.BOOLEAN)):
        assert name not in keys and keys[prefix + name].type is expected
