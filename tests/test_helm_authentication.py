"""The chart's Strimzi authentication shapes, rendered and validated offline: mTLS (`tls` with certificateAndKey),
SCRAM-SHA-512/256 and PLAIN (username and passwordSecret), on the target and on every source.

Followed: Strimzi's api (io.strimzi.api.kafka.model.common.authentication: KafkaClientAuthenticationTls with a
CertAndKeySecretSource, KafkaClientAuthenticationScramSha512/ScramSha256/Plain with a username and a
PasswordSecretSource) and Kafka's client settings for them (security.protocol, sasl.mechanism, sasl.jaas.config,
ssl.keystore.type=PEM with ssl.keystore.certificate.chain and ssl.keystore.key, KIP-651). The rendered mTLS
settings are run against real brokers in tests/test_helm_mtls_run.py.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from connectors.mirror.maker_config import MirrorMakerConfig
from pyconnect.config.properties import parse_properties
from tests.harness.helm_chart import CHART, by_kind, render_values

helm = pytest.importorskip("helm_python", reason="helm-python-sdk is not installed (pip install -e '.[test]')")
kv = pytest.importorskip("kubernetes_validate", reason="kubernetes-validate is not installed")

CA = {"trustedCertificates": [{"secretName": "cluster-ca-cert", "certificate": "ca.crt"}]}
MTLS = {"type": "tls", "certificateAndKey": {"secretName": "mm2-user", "certificate": "user.crt", "key": "user.key"}}


def sasl(kind: str, user: str = "mm2") -> dict[str, Any]:
    return {"type": kind, "username": user, "passwordSecret": {"secretName": "mm2-pass", "password": "pw"}}


def values(cluster: str, authentication: dict[str, Any], tls: dict[str, Any] | None = None) -> dict[str, Any]:
    """`authentication` (and `tls`) on the target T or on the source S of the one mirror."""
    target: dict[str, Any] = {"alias": "T", "bootstrapServers": "t:9093"}
    source: dict[str, Any] = {"alias": "S", "bootstrapServers": "s:9093"}
    chosen = target if cluster == "T" else source
    chosen["authentication"] = authentication
    if tls is not None:
        chosen["tls"] = tls
    return {"target": target, "mirrors": [{"source": source}]}


def rendered(vals: dict[str, Any]) -> tuple[dict[str, str], dict[str, Any]]:
    """The cluster lines of mm2.properties (key -> value) and the pod spec; every manifest validated."""
    docs = render_values(vals)
    for doc in docs:
        kv.validate(doc, "1.30.0", strict=True)
    text = by_kind(docs, "ConfigMap")["data"]["mm2.properties"]
    MirrorMakerConfig(parse_properties(text, "mm2.properties"), resolve_providers=False)  # replikafka reads it
    lines = dict(line.split(" = ", 1) for line in text.splitlines() if " = " in line)
    return lines, by_kind(docs, "Deployment")["spec"]["template"]["spec"]


def security(lines: dict[str, str], alias: str) -> dict[str, str]:
    """The client security settings of cluster `alias` (its `<alias>.ssl.*`, `.sasl.*`, `.security.*` lines)."""
    return {k[len(alias) + 1:]: v for k, v in lines.items()
            if k.startswith((f"{alias}.ssl.", f"{alias}.sasl.", f"{alias}.security."))}


def mounts(pod: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """mount path -> (volume name, Secret name) of the worker's Secret volumes."""
    secrets = {v["name"]: v["secret"]["secretName"] for v in pod["volumes"] if "secret" in v}
    return {m["mountPath"]: (m["name"], secrets[m["name"]]) for m in pod["containers"][0]["volumeMounts"]
            if m["name"] in secrets and m["readOnly"]}


@pytest.mark.parametrize("cluster", ["T", "S"])
@pytest.mark.parametrize("with_ca", [True, False], ids=["ca", "system-ca"])
def test_tls_certificate_and_key_is_a_pem_key_store_read_from_the_mounted_secret(cluster: str,
                                                                                  with_ca: bool) -> None:
    lines, pod = rendered(values(cluster, MTLS, CA if with_ca else None))
    secrets = f"/etc/replikafka/secrets/{cluster}"
    expected = {"security.protocol": "SSL", "ssl.keystore.type": "PEM",
                "ssl.keystore.certificate.chain": f"${{directory:{secrets}:user.crt}}",
                "ssl.keystore.key": f"${{directory:{secrets}:user.key}}"}
    if with_ca:
        expected |= {"ssl.truststore.type": "PEM", "ssl.truststore.location": f"/etc/replikafka/certs/{cluster}/ca.crt"}
    assert security(lines, cluster) == expected
    other = "S" if cluster == "T" else "T"
    assert security(lines, other) == {}
    expected_mounts = {secrets: (f"secret-{cluster.lower()}", "mm2-user")}
    if with_ca:
        expected_mounts[f"/etc/replikafka/certs/{cluster}"] = (f"certs-{cluster.lower()}", "cluster-ca-cert")
    assert mounts(pod) == expected_mounts


@pytest.mark.parametrize(("kind", "mechanism", "module"), [
    ("scram-sha-512", "SCRAM-SHA-512", "org.apache.kafka.common.security.scram.ScramLoginModule"),
    ("scram-sha-256", "SCRAM-SHA-256", "org.apache.kafka.common.security.scram.ScramLoginModule"),
    ("plain", "PLAIN", "org.apache.kafka.common.security.plain.PlainLoginModule")])
@pytest.mark.parametrize("cluster", ["T", "S"])
@pytest.mark.parametrize("with_ca", [True, False], ids=["tls", "plaintext"])
def test_sasl_shapes_name_the_password_file_never_the_password(kind: str, mechanism: str, module: str,
                                                                cluster: str, with_ca: bool) -> None:
    lines, pod = rendered(values(cluster, sasl(kind), CA if with_ca else None))
    secrets = f"/etc/replikafka/secrets/{cluster}"
    assert lines[f"{cluster}.security.protocol"] == ("SASL_SSL" if with_ca else "SASL_PLAINTEXT")
    assert lines[f"{cluster}.sasl.mechanism"] == mechanism
    assert lines[f"{cluster}.sasl.jaas.config"] == (
        f'{module} required username="mm2" password="${{directory:{secrets}:pw}}";')
    assert f"{cluster}.ssl.keystore.type" not in lines
    assert (f"{cluster}.ssl.truststore.location" in lines) is with_ca
    assert mounts(pod)[secrets] == (f"secret-{cluster.lower()}", "mm2-pass")


def test_the_ci_value_set_gives_every_cluster_its_own_shape_and_secret() -> None:
    """helm/ci/strimzi-authentication-values.yaml: four clusters, four shapes, each its own Secret, and an
    alias with "_" and capitals still makes a valid volume name."""
    import yaml

    vals = yaml.safe_load((CHART / "ci" / "strimzi-authentication-values.yaml").read_text())
    vals["mirrors"][1]["source"]["alias"] = "Legacy_DC"
    lines, pod = rendered(vals)
    assert {alias: lines.get(f"{alias}.sasl.mechanism", lines[f"{alias}.security.protocol"])
            for alias in ("dr", "east", "Legacy_DC", "west")} == {
        "dr": "SSL", "east": "SCRAM-SHA-512", "Legacy_DC": "PLAIN", "west": "SCRAM-SHA-256"}
    assert mounts(pod)["/etc/replikafka/secrets/Legacy_DC"] == ("secret-legacy-dc", "legacy-mm2")
    assert {secret for _, secret in mounts(pod).values()} == {
        "mm2-user", "east-mm2", "legacy-mm2", "west-mm2", "dr-cluster-ca-cert", "east-cluster-ca-cert",
        "west-cluster-ca-cert"}


def test_a_quote_in_the_username_cannot_end_the_jaas_value() -> None:
    lines, _ = rendered(values("S", sasl("scram-sha-512", user='ops"admin\\x')))
    jaas = lines["S.sasl.jaas.config"]
    assert 'username="ops\\"admin\\\\x" password=' in jaas
    assert re.fullmatch(r'\S+ required username="(?:[^"\\]|\\.)*" password="\$\{directory:[^}]+\}";', jaas)


def test_distributed_mode_mounts_the_secrets_its_raw_properties_name() -> None:
    """Worker client settings come from rawProperties; the clusters' Secrets are mounted there as well."""
    vals = values("T", sasl("scram-sha-512"), CA) | {"mode": "distributed", "mirrors": [], "rawProperties": (
        "bootstrap.servers=t:9093\ngroup.id=connect\nsecurity.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
        'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="mm2" '
        'password="${directory:/etc/replikafka/secrets/T:pw}";\n')}
    docs = render_values(vals)
    pod = by_kind(docs, "Deployment")["spec"]["template"]["spec"]
    assert pod["containers"][0]["args"] == ["distributed", "/etc/replikafka/config/worker.properties"]
    assert mounts(pod) == {"/etc/replikafka/secrets/T": ("secret-t", "mm2-pass"),
                           "/etc/replikafka/certs/T": ("certs-t", "cluster-ca-cert")}


BAD: dict[str, dict[str, Any]] = {
    "tls without certificateAndKey": {"type": "tls"},
    "tls with a password": MTLS | {"passwordSecret": {"secretName": "s", "password": "p"}},
    "certificateAndKey without key": {"type": "tls", "certificateAndKey": {"secretName": "s", "certificate": "c"}},
    "scram without passwordSecret": {"type": "scram-sha-512", "username": "mm2"},
    "plain without username": {"type": "plain", "passwordSecret": {"secretName": "s", "password": "p"}},
    "passwordSecret without password": sasl("scram-sha-512") | {"passwordSecret": {"secretName": "s"}},
    "scram with a certificate": sasl("scram-sha-512") | {"certificateAndKey": MTLS["certificateAndKey"]},
    "no type": {"username": "mm2", "passwordSecret": {"secretName": "s", "password": "p"}},
    "an unsupported type": {"type": "oauth", "clientId": "mm2"},
    "Strimzi's upper-case mechanism name": sasl("SCRAM-SHA-512"),
    "a misspelt key": sasl("scram-sha-512") | {"passwordSecrets": {}},
}


@pytest.mark.parametrize("cluster", ["T", "S"])
@pytest.mark.parametrize("shape", list(BAD))
def test_schema_refuses_a_bad_shape_naming_where(cluster: str, shape: str) -> None:
    with pytest.raises(helm.HelmError) as refused:
        helm.Chart.load(str(CHART)).render(values(cluster, BAD[shape]), name="rk")
    where = "/target/authentication" if cluster == "T" else "/mirrors/0/source/authentication"
    assert where in str(refused.value)


@pytest.mark.parametrize(("vals", "where"), [
    (values("S", {}, {"trustedCertificates": [{"secretName": "ca"}]}), "/mirrors/0/source/tls"),
    (values("S", {}, {"trustedCertificates": [CA["trustedCertificates"][0]] * 2}), "/mirrors/0/source/tls"),
    (values("S", {}) | {"mirrors": [{"source": {"alias": "S", "bootstrapServers": "s", "authentification": {}}}]},
     "/mirrors/0/source"),
    ({"mode": "distributed"}, "/rawProperties")])
def test_schema_refuses_bad_tls_sources_and_a_distributed_mode_without_properties(vals: dict[str, Any],
                                                                                   where: str) -> None:
    with pytest.raises(helm.HelmError) as refused:
        helm.Chart.load(str(CHART)).render(vals, name="rk")
    assert where in str(refused.value)


def test_no_authentication_renders_no_security_and_mounts_nothing() -> None:
    lines, pod = rendered(values("S", {}))
    assert security(lines, "S") == security(lines, "T") == {}
    assert mounts(pod) == {}
