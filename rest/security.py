"""REST security: HTTPS from the worker's `listeners.https.ssl.*` / `ssl.*` keys, and HTTP basic auth
like Connect's BasicAuthSecurityRestExtension (a Jetty-style credentials file)."""

from __future__ import annotations

import base64
import binascii
import hmac
import os
import re
import ssl
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pyconnect.config.properties import ConfigFileError, load_properties

BASIC_AUTH_EXTENSION = "BasicAuthSecurityRestExtension"


@dataclass(frozen=True)
class TlsFiles:
    certfile: str
    keyfile: str | None
    password: str | None
    cafile: str | None


def _ssl_key(raw: Mapping[str, str], name: str) -> str | None:
    return raw.get(f"listeners.https.ssl.{name}") or raw.get(f"ssl.{name}")


def tls_files(raw: Mapping[str, str]) -> TlsFiles:
    """Server certificate and key for an https listener: a PEM keystore (key + chain in one file,
    Kafka's `ssl.keystore.type=PEM`) or a PKCS12 keystore converted to PEM at start."""
    location = _ssl_key(raw, "keystore.location")
    if not location:
        raise ConfigFileError("<worker config>", None, "listeners.https.ssl.keystore.location",
                              "an https listener needs a keystore")
    kind = (_ssl_key(raw, "keystore.type") or ("PEM" if location.endswith(".pem") else "PKCS12")).upper()
    password = _ssl_key(raw, "keystore.password")
    truststore = _ssl_key(raw, "truststore.location")
    if kind == "PEM":
        return TlsFiles(location, None, _ssl_key(raw, "key.password"), truststore)
    if kind == "PKCS12":
        from cryptography.hazmat.primitives.serialization import (
            BestAvailableEncryption,
            Encoding,
            NoEncryption,
            PrivateFormat,
            pkcs12,
        )

        key, cert, extra = pkcs12.load_key_and_certificates(Path(location).read_bytes(),
                                                            password.encode() if password else None)
        if key is None or cert is None:
            raise ConfigFileError(location, None, "ssl.keystore.location", "keystore holds no key and certificate")
        enc = BestAvailableEncryption(password.encode()) if password else NoEncryption()
        pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, enc) + cert.public_bytes(Encoding.PEM) + b"".join(
            c.public_bytes(Encoding.PEM) for c in extra or [])
        fd, path = tempfile.mkstemp(prefix="pyconnect-tls-", suffix=".pem")
        os.write(fd, pem)
        os.close(fd)
        return TlsFiles(path, None, password, truststore)
    raise ConfigFileError("<worker config>", None, "listeners.https.ssl.keystore.type",
                          f"unsupported keystore type {kind} (use PEM or PKCS12)")


def client_verify(raw: Mapping[str, str]) -> ssl.SSLContext | bool:
    """How this worker verifies other workers when forwarding over https."""
    cafile = _ssl_key(raw, "truststore.location")
    if cafile:
        ctx = ssl.create_default_context(cafile=cafile)
        if (_ssl_key(raw, "endpoint.identification.algorithm") or "https") == "":
            ctx.check_hostname = False
        return ctx
    return True


def _credentials_from_jaas() -> str | None:
    """`file=` of a PropertyFileLoginModule in the JAAS file named by KAFKA_OPTS, as Connect uses."""
    opts = os.environ.get("KAFKA_OPTS", "")
    match = re.search(r"-Djava\.security\.auth\.login\.config=(\S+)", opts)
    if not match:
        return None
    text = Path(match.group(1)).read_text()
    found = re.search(r'file\s*=\s*"([^"]+)"', text)
    return found.group(1) if found else None


class BasicAuth:
    """Checks `Authorization: Basic ...` against `user: password[,role...]` lines."""

    def __init__(self, credentials_file: str) -> None:
        props = load_properties(credentials_file)
        self.users = {user: value.split(",")[0].strip() for user, value in props.values().items()}

    @classmethod
    def from_worker(cls, raw: Mapping[str, str]) -> BasicAuth | None:
        extensions = raw.get("rest.extension.classes", "")
        if BASIC_AUTH_EXTENSION not in extensions:
            return None
        path = raw.get("rest.basic.auth.credentials.file") or _credentials_from_jaas()
        if not path:
            raise ConfigFileError("<worker config>", None, "rest.basic.auth.credentials.file",
                                  "BasicAuthSecurityRestExtension needs a credentials file")
        return cls(path)

    def allows(self, header: str | None) -> bool:
        if not header or not header.lower().startswith("basic "):
            return False
        try:
            user, _, password = base64.b64decode(header[6:].strip()).decode("utf-8").partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return False
        expected = self.users.get(user)
        return expected is not None and hmac.compare_digest(expected, password)
