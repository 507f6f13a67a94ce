"""Plugin versions (KIP-891): Maven version ranges as Kafka reads them (PluginVersionUtils.
connectorVersionRequirement, followed in Kafka's PluginVersionUtilsTest and ConnectorConfig's
`connector.plugin.version`), and versions from package metadata."""

from __future__ import annotations

import pytest

from pyconnect.api.plugin_version import (
    UNDEFINED,
    mismatch,
    plugin_version,
    project_version,
    requirement,
    version_spec_validator,
)
from pyconnect.converters.numbers import LongConverter
from pyconnect.plugins import component_plugins, find_component
from pyconnect.transforms.flatten import FlattenValue


@pytest.mark.parametrize(("spec", "shown"), [
    ("1.0", "[1.0]"), (" 1.0 ", "[1.0]"), ("[1.0,2.0)", "[1.0,2.0)"), ("(,1.0],[1.2,)", "(,1.0],[1.2,)"),
    ("[1.5,)", "[1.5,)"), ("[2.1]", "[2.1]")])
def test_a_bare_version_is_a_hard_requirement(spec: str, shown: str) -> None:
    """PluginVersionUtils.connectorVersionRequirement: a bare version is enclosed in [], a range kept."""
    wanted = requirement(spec)
    assert wanted is not None and str(wanted) == shown


def test_latest_and_null_are_no_requirement() -> None:
    assert requirement(None) is None and requirement("latest") is None


@pytest.mark.parametrize(("spec", "inside", "outside"), [
    ("1.0", ["1.0", "1", "1.0.0"], ["1.0.1", "0.9"]),
    ("[1.0,2.0)", ["1.0", "1.9.9", "1.10"], ["2.0", "0.9", "2.0.1"]),
    ("(,1.0],[1.2,)", ["0.1", "1.0", "1.2", "10"], ["1.1", "1.0.5"]),
    ("[1.0-rc1,1.0)", ["1.0-rc1", "1.0-rc2"], ["1.0", "0.9"]),
])
def test_range_membership_follows_maven_ordering(spec: str, inside: list[str], outside: list[str]) -> None:
    """Maven's ordering: numeric parts numerically, trailing zeros equal, a release candidate below the release."""
    wanted = requirement(spec)
    assert wanted is not None
    assert [v for v in inside if not wanted.contains(v)] == []
    assert [v for v in outside if wanted.contains(v)] == []


@pytest.mark.parametrize("spec", ["[1.0", "[2.0,1.0]", "(1.0)", "1.0]", "[1.0,2.0,3.0]"])
def test_invalid_specs_are_refused_with_a_message(spec: str) -> None:
    """Kafka's PluginVersionValidator: an InvalidVersionSpecificationException's message on the key."""
    assert version_spec_validator("connector.plugin.version", spec)


def test_mismatch_uses_kafkas_message() -> None:
    """DelegatingClassLoader.verifyClasspathVersionedPlugin's message."""
    assert mismatch("a.B", "0.1.0", "[1.0,2.0)") == ("Plugin a.B has version 0.1.0 which does not match the "
                                                      "required version range [1.0,2.0)")
    assert mismatch("a.B", "1.5", "[1.0,2.0)") is None
    assert mismatch("a.B", "1.5", "latest") is None


def test_versions_come_from_the_providing_distribution() -> None:
    """Built-ins report the project's distribution version; a class of no distribution, "undefined"."""
    assert plugin_version(FlattenValue) == project_version() == plugin_version(LongConverter)

    class Local:
        pass
    Local.__module__ = "not_an_installed_package.module"
    assert plugin_version(Local) == UNDEFINED


def test_every_component_type_is_listed_and_found() -> None:
    """What `?connectorsOnly=false` lists beyond connectors; the names `/connector-plugins/<plugin>/config` takes."""
    kinds = {(p.class_name.rsplit(".", 1)[-1], p.type) for p in component_plugins()}
    assert {("Flatten$Value", "transformation"), ("LongConverter", "converter"), ("LongConverter", "header_converter"),
            ("SimpleHeaderConverter", "header_converter"), ("HasHeaderKey", "predicate")} <= kinds
    assert ("SimpleHeaderConverter", "converter") not in kinds
    found = find_component("TimestampConverter$Value")
    assert found is not None and "target.type" in found.config_def().keys
    assert find_component("NoSuchThing") is None


def test_transform_and_predicate_versions_are_checked_and_not_passed_on() -> None:
    """`transforms.<alias>.plugin.version` and `predicates.<alias>.plugin.version` (ConnectorConfig's
    enriched keys): a mismatch is an error on the type and version keys; a matching range builds the chain."""
    from pyconnect.transforms import build_chain, validate

    config = {"transforms": "drop", "transforms.drop.type": "Filter", "transforms.drop.predicate": "h",
              "transforms.drop.plugin.version": project_version(), "predicates": "h",
              "predicates.h.type": "HasHeaderKey", "predicates.h.name": "x", "predicates.h.plugin.version": "[9,)"}
    errors = validate(config).errors
    wanted = mismatch("org.apache.kafka.connect.transforms.predicates.HasHeaderKey", project_version(), "[9,)")
    assert errors == {"predicates.h.type": [wanted], "predicates.h.plugin.version": [wanted]}
    assert validate({**config, "transforms.drop.plugin.version": "(,0.0.1)"}).errors[
        "transforms.drop.plugin.version"] == [mismatch("org.apache.kafka.connect.transforms.Filter",
                                                       project_version(), "(,0.0.1)")]
    build_chain({**config, "predicates.h.plugin.version": f"[{project_version()},)"}).close()


def test_a_plugin_that_declares_its_version_is_listed_with_it() -> None:
    """Connect reads a plugin's version from its `version()` (Versioned): a class that overrides it is
    listed and checked with that; otherwise its distribution's version."""
    from pyconnect.plugins import PluginInfo, declared_version
    from pyconnect.transforms.filter import Filter
    from tests.harness.plugins import ValidateOnlyConnector

    class Pinned(Filter):
        def version(self) -> str:
            return "5.0"

    class PinnedConnector(ValidateOnlyConnector):
        def version(self) -> str:
            return "7.1"

    assert declared_version(Pinned) == "5.0" and declared_version(Filter) == project_version()
    assert PluginInfo("p", PinnedConnector).version() == "7.1"
    assert mismatch("p", PluginInfo("p", PinnedConnector).version(), "[7.0,8.0)") is None
