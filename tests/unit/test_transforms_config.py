"""The transform keys of a connector config as `/config/validate` will show them, Java aliases of the
built-ins, and a chain of built-ins end to end."""

from __future__ import annotations

from pyconnect.api.data import STRING_SCHEMA
from pyconnect.transforms import ConnectRecord, Headers, build_chain, java_name, validate
from pyconnect.transforms.insert_field import InsertFieldValue
from pyconnect.transforms.predicates import TopicNameMatches
from pyconnect.transforms.registry import resolve_class


def test_java_and_simple_names_resolve_to_the_builtins() -> None:
    assert resolve_class("org.apache.kafka.connect.transforms.InsertField$Value", "Transformation") is InsertFieldValue
    assert resolve_class("InsertField$Value", "Transformation") is InsertFieldValue
    assert resolve_class("org.apache.kafka.connect.transforms.predicates.TopicNameMatches", "Predicate") is \
        TopicNameMatches
    assert resolve_class("pyconnect.transforms.predicates.TopicNameMatches", "Predicate") is TopicNameMatches
    assert java_name(InsertFieldValue) == "org.apache.kafka.connect.transforms.InsertField$Value"


def test_duplicate_aliases_are_refused_with_connects_message() -> None:
    errors = validate({"transforms": "a,a", "transforms.a.type": "Filter"}).errors
    assert errors == {"transforms": ["Invalid value a,a for configuration transforms: Duplicate alias provided."]}


def test_validate_reports_per_key_errors_and_the_extra_keys() -> None:
    result = validate({"transforms": "route,tag", "transforms.route.type": "RegexRouter",
                       "transforms.route.regex": "(", "transforms.tag.type": "Nope", "predicates": "p"})
    assert {"transforms.route.type", "transforms.route.regex", "transforms.route.replacement",
            "transforms.route.predicate", "transforms.route.negate", "transforms.tag.type",
            "predicates.p.type"} <= set(result.config_def.keys)
    errors = result.errors
    assert errors["transforms.route.regex"][0].startswith("Invalid value ( for configuration transforms.route.regex: "
                                                          "Invalid regex")
    assert errors["transforms.route.replacement"] == [
        'Missing required configuration "transforms.route.replacement" which has no default value.']
    assert errors["transforms.tag.type"] == [
        "Invalid value Nope for configuration transforms.tag.type: Class Nope could not be found."]
    assert errors["predicates.p.type"] == [
        'Missing required configuration "predicates.p.type" which has no default value.']


def test_a_chain_of_builtins_applies_in_order_with_predicates() -> None:
    chain = build_chain({
        "transforms": "drop,route,header", "predicates": "tomb,orders",
        "transforms.drop.type": "org.apache.kafka.connect.transforms.Filter", "transforms.drop.predicate": "tomb",
        "transforms.route.type": "RegexRouter", "transforms.route.regex": "orders-(.*)",
        "transforms.route.replacement": "mirror.$1", "transforms.route.predicate": "orders",
        "transforms.header.type": "InsertHeader", "transforms.header.header": "via",
        "transforms.header.value.literal": "replikafka",
        "predicates.tomb.type": "RecordIsTombstone",
        "predicates.orders.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
        "predicates.orders.pattern": "orders-.*"})
    assert chain.apply(ConnectRecord("orders-eu", value=None)) is None
    out = chain.apply(ConnectRecord("orders-eu", value="v"))
    assert out is not None and out.topic == "mirror.eu"
    assert out.headers == Headers().add("via", "replikafka", STRING_SCHEMA)
    other = chain.apply(ConnectRecord("payments", value="v"))
    assert other is not None and other.topic == "payments"
    chain.close()
