"""Clusters a client could not connect to for a reason waiting will not cure (TLS, authentication).

librdkafka retries such failures forever and reports them only through the error callback, so a
blocking call would otherwise wait out its whole timeout and fail with "transport failure". A
`TroubleWatch` records them per client so callers fail at once with the cluster alias and the cause;
for a certificate that does not verify it asks Python's `ssl` (same CA file, same hostname check)
why, since librdkafka says only "certificate verify failed" for an unknown CA, an expired certificate
and a wrong hostname alike. Failures are also kept per cluster (`current`) for the worker's /health.
"""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import Mapping

import confluent_kafka as ck

from pyconnect.kafka.clients import KafkaClientError
from pyconnect.kafka.cluster_labels import alias_label, label_cluster

# Errors a retry does not fix: a handshake that fails, credentials the broker refuses.
_FATAL_TO_CONNECT = {ck.KafkaError._SSL, ck.KafkaError._AUTHENTICATION}
# A broker demanding a client certificate the client did not present closes with this alert.
_CERT_REQUIRED = "certificate required"
# What each of Python's verify messages means for the operator.
_HINTS = {
    "unable to get local issuer certificate": "not signed by a CA the client trusts (check ssl.truststore.location)",
    "self-signed certificate": "not signed by a CA the client trusts (check ssl.truststore.location)",
    "certificate has expired": "the broker's certificate has expired",
    "Hostname mismatch": "the broker's certificate is for another host name "
                         "(ssl.endpoint.identification.algorithm=https checks it)",
}
REMEMBER_S = 300.0  # a cluster problem /health reports, unless a later call reached the cluster

_lock = threading.Lock()
_problems: dict[str, tuple[str, float]] = {}


def current() -> dict[str, str]:
    """Cluster alias (or bootstrap servers) -> the last TLS/authentication failure still unresolved."""
    now = time.monotonic()
    with _lock:
        return {name: text for name, (text, at) in _problems.items() if now - at < REMEMBER_S}


def _record(name: str, text: str) -> None:
    with _lock:
        _problems[name] = (text, time.monotonic())


def resolved(name: str) -> None:
    """A call to cluster `name` succeeded: forget its problem."""
    with _lock:
        _problems.pop(name, None)


def _first_address(bootstrap: str) -> tuple[str, int] | None:
    first = bootstrap.split(",")[0].strip()
    if "://" in first:
        first = first.split("://", 1)[1]
    host, _, port = first.rpartition(":")
    return (host.strip("[]"), int(port)) if host and port.isdigit() else None


def diagnose_certificate(conf: Mapping[str, str]) -> str | None:
    """Why the broker's certificate does not verify for a client with `conf` (librdkafka settings),
    as Python's ssl says it (e.g. "certificate has expired"); None when it cannot tell."""
    address = _first_address(str(conf.get("bootstrap.servers", "")))
    if address is None:
        return None
    context = ssl.create_default_context(cafile=conf.get("ssl.ca.location") or None)
    context.check_hostname = str(conf.get("ssl.endpoint.identification.algorithm", "https")).lower() == "https"
    try:
        with socket.create_connection(address, timeout=5) as raw, \
                context.wrap_socket(raw, server_hostname=address[0]):
            return None
    except ssl.SSLCertVerificationError as exc:
        said = str(exc.verify_message or exc)
        hint = next((h for k, h in _HINTS.items() if k in said), None)
        return f"{hint}: {said}" if hint else said
    except (OSError, ssl.SSLError):
        return None


class ClusterUnreachable(KafkaClientError):
    """A client cannot connect to a cluster for a reason retries will not fix (TLS or authentication)."""


class TroubleWatch:
    """The error callback of one client: keeps its first TLS/authentication failure, readably."""

    def __init__(self, conf: Mapping[str, str], cluster: str | None = None) -> None:
        self._conf = dict(conf)
        self._bootstrap = str(conf.get("bootstrap.servers", "?"))
        self.name = cluster or self._bootstrap
        self.problem: str | None = None
        if cluster:  # the client's librdkafka log lines name the alias too (pyconnect.kafka.client_log)
            label_cluster(self._bootstrap, alias_label(cluster))

    @property
    def where(self) -> str:
        """The cluster as a reason names it: "A (host:9092)", or the bootstrap servers when it has no alias."""
        return self.name if self.name == self._bootstrap else f"{self.name} ({self._bootstrap})"

    def on_error(self, err: ck.KafkaError) -> None:
        text = err.str()
        if self.problem is not None:
            return
        if err.code() in _FATAL_TO_CONNECT or _CERT_REQUIRED in text:
            self.problem = self._describe(err.code(), text)
            _record(self.name, self.problem)

    def _describe(self, code: int, text: str) -> str:
        where = f"cluster {self.name} (bootstrap.servers={self._conf.get('bootstrap.servers')})"
        if _CERT_REQUIRED in text:
            return f"{where} refused the TLS connection: the broker requires a client certificate and this " \
                   f"client presented none (set ssl.keystore.* or ssl.certificate.location) [{text}]"
        if code == ck.KafkaError._AUTHENTICATION:
            return f"{where} refused authentication: {text}"
        cause = diagnose_certificate(self._conf) if "certificate verify failed" in text else None
        return f"{where}: TLS handshake failed" + (f": {cause}" if cause else "") + f" [{text}]"

    def check(self) -> None:
        """Raise ClusterUnreachable if a TLS/authentication failure has been seen."""
        if self.problem is not None:
            raise ClusterUnreachable(self.problem)

    def succeeded(self) -> None:
        resolved(self.name)
