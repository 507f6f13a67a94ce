"""Transforms applied by the runtime: a source connector's records go through
its `transforms` chain between poll and the producer; bad transform configs are refused with
Connect's messages (item 6); connectors whose tasks copy message runs refuse transforms for now."""

from __future__ import annotations

from typing import Any

from tests.harness.connectors import all_running, committed, sequence_connector
from tests.harness.kafka_io import create_topic, produce_many, read_messages, topic_names
from tests.harness.mirror import mirror_source
from tests.harness.workers import Cluster, wait_for


def test_regex_router_and_insert_header_apply_to_every_record(cluster_factory: Any, unique: str) -> None:
    cluster: Cluster = cluster_factory()
    (w,) = cluster.start(1)
    topic, count = f"tr-{unique}", 300
    body = sequence_connector("seq", topic, 1, count)
    body["config"].update({
        "transforms": "route,origin",
        "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
        "transforms.route.regex": "tr-(.*)", "transforms.route.replacement": "renamed-$1",
        "transforms.origin.type": "org.apache.kafka.connect.transforms.InsertHeader",
        "transforms.origin.header": "origin", "transforms.origin.value.literal": "sequence"})
    r = w.request("POST", "/connectors", body)
    assert r.status_code == 201, r.text
    wait_for(lambda: all_running(w, "seq", 1), 60, "running")
    wait_for(lambda: committed(w, "seq") >= count, 60, "every record committed")
    messages = read_messages(cluster.broker.bootstrap, f"renamed-{unique}", expect=count)
    assert sorted(int(m.value().split(b":")[1]) for m in messages) == list(range(count))
    assert {tuple(m.headers() or ()) for m in messages} == {(("origin", b"sequence"),)}
    assert topic not in topic_names(cluster.broker.bootstrap), "nothing was written under the old name"


def test_bad_transform_configs_are_refused_with_connects_messages(cluster_factory: Any, unique: str) -> None:
    (w,) = cluster_factory().start(1)
    base = {**sequence_connector("seq", f"t-{unique}", 1, 10)["config"], "name": "seq"}
    cases = {
        "transforms.x.type": ({"transforms": "x", "transforms.x.type": "com.example.Nope"},
                              "Class com.example.Nope could not be found."),
        "transforms.r.regex": ({"transforms": "r", "transforms.r.type": "RegexRouter", "transforms.r.regex": "(",
                                "transforms.r.replacement": "x"},
                               "Invalid value ( for configuration transforms.r.regex"),
        "transforms": ({"transforms": "a,a", "transforms.a.type": "RegexRouter", "transforms.a.regex": "x",
                        "transforms.a.replacement": "y"}, "Duplicate alias provided."),
    }
    for key, (extra, message) in cases.items():
        v = w.request("PUT", "/connector-plugins/SequenceSourceConnector/config/validate", {**base, **extra}).json()
        found = {c["value"]["name"]: c["value"]["errors"] for c in v["configs"] if c["value"]["errors"]}
        assert key in found and any(message in e for e in found[key]), (key, found)
        r = w.request("POST", "/connectors", {"name": "seq", "config": {**base, **extra}})
        assert r.status_code == 400 and message in r.json()["message"], r.text
    undefined = {"transforms": "f", "transforms.f.type": "Filter", "transforms.f.predicate": "nope"}
    r = w.request("POST", "/connectors", {"name": "seq", "config": {**base, **undefined}})
    assert r.status_code == 400, r.text
    assert "predicates.nope.type" in r.json()["message"], r.text


def test_mirror_source_with_a_regex_router_replicates_into_the_renamed_topics(cluster_factory: Any, broker: Any,
                                                                             broker_b: Any, unique: str) -> None:
    """`transforms=rename` (RegexRouter) on MirrorSourceConnector; every record lands, in
    order, with its key, value and headers, in the renamed topic."""
    topic, count = f"rr{unique}", 600
    create_topic(broker.bootstrap, topic, 2)
    produce_many(broker.bootstrap, topic, count, 2)
    create_topic(broker_b.bootstrap, f"renamed-{unique}", 2)
    (w,) = cluster_factory(on=broker_b).start(1)
    config = {**mirror_source(broker, broker_b, {"topics": topic}), "transforms": "rename",
              "transforms.rename.type": "org.apache.kafka.connect.transforms.RegexRouter",
              "transforms.rename.regex": f"A\\.rr{unique}", "transforms.rename.replacement": f"renamed-{unique}"}
    r = w.request("POST", "/connectors", {"name": "ms", "config": config})
    assert r.status_code == 201, r.text
    copies = wait_for(lambda: (lambda m: m if len(m) >= count else None)(
        read_messages(broker_b.bootstrap, f"renamed-{unique}", idle=0.5)), 90, "every record renamed on B")
    source = read_messages(broker.bootstrap, topic)
    by_partition = {p: [(m.key(), m.value(), m.headers()) for m in copies if m.partition() == p] for p in (0, 1)}
    assert by_partition == {p: [(m.key(), m.value(), m.headers()) for m in source if m.partition() == p]
                            for p in (0, 1)}
    assert f"A.{topic}" not in topic_names(broker_b.bootstrap) or not read_messages(broker_b.bootstrap, f"A.{topic}",
                                                                                   idle=0.5)


def test_dropped_records_still_commit_their_offsets(cluster_factory: Any, unique: str) -> None:
    """Connect's recordDropped: a record a Filter drops is not written, but its offset is committed."""
    cluster: Cluster = cluster_factory()
    (w,) = cluster.start(1)
    topic, count = f"drop-{unique}", 200
    body = sequence_connector("seq", topic, 1, count)
    body["config"].update({"transforms": "all", "transforms.all.type": "org.apache.kafka.connect.transforms.Filter",
                           "transforms.all.predicate": "mine", "predicates": "mine",
                           "predicates.mine.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
                           "predicates.mine.pattern": "drop-.*"})
    assert w.request("POST", "/connectors", body).status_code == 201
    wait_for(lambda: committed(w, "seq") >= count, 60, "the dropped records' offsets committed")
    assert topic not in topic_names(cluster.broker.bootstrap)


def test_plugin_listing_names_transforms_and_predicates(cluster_factory: Any) -> None:
    (w,) = cluster_factory().start(1)
    listed = {(p["class"], p["type"]) for p in w.request("GET", "/connector-plugins?connectorsOnly=false").json()}
    assert ("org.apache.kafka.connect.transforms.RegexRouter", "transformation") in listed
    assert ("org.apache.kafka.connect.transforms.InsertField$Value", "transformation") in listed
    assert ("org.apache.kafka.connect.transforms.predicates.TopicNameMatches", "predicate") in listed
    assert all(t in ("source", "sink") for _c, t in
               {(p["class"], p["type"]) for p in w.request("GET", "/connector-plugins").json()})



def test_header_values_set_by_transforms_go_through_the_connectors_header_converter(
        cluster_factory: Any, unique: str) -> None:
    """`header.converter` per connector: InsertHeader's literal `42` is an INT8 header value, which
    JsonConverter writes as Connect's envelope (the worker's SimpleHeaderConverter would write `42`)."""
    cluster: Cluster = cluster_factory()
    (w,) = cluster.start(1)
    topic, count = f"hc-{unique}", 20
    body = sequence_connector("seq", topic, 1, count)
    body["config"].update({
        "transforms": "answer", "transforms.answer.type": "org.apache.kafka.connect.transforms.InsertHeader",
        "transforms.answer.header": "answer", "transforms.answer.value.literal": "42",
        "header.converter": "org.apache.kafka.connect.json.JsonConverter"})
    assert w.request("POST", "/connectors", body).status_code == 201
    messages = wait_for(lambda: (lambda m: m if len(m) >= count else None)(
        read_messages(cluster.broker.bootstrap, topic, idle=0.5)), 60, "the records")
    assert {tuple(m.headers() or ()) for m in messages} == {
        (("answer", b'{"schema":{"type":"int8","optional":false},"payload":42}'),)}
