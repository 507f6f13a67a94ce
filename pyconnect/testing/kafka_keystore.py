"""A PKCS12 keystore for an Apache Kafka SSL listener, issued by a test CA (pyconnect.testing.tls).

The certificate names `localhost` and 127.0.0.1 (clients verify the host name by default), and the store
carries the CA's certificate as the chain, as a keystore made by keytool from a CA-signed reply would.
"""

from __future__ import annotations

from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs12

from pyconnect.testing.tls import CertificateAuthority


def server_keystore(ca: CertificateAuthority, path: Path, password: str) -> Path:
    """Write a PKCS12 keystore at `path` holding a `localhost` server key and certificate signed by `ca`."""
    cert_path, key_path = ca.issue("localhost")
    key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey):  # the test CA issues EC keys only
        raise TypeError(f"unexpected server key type {type(key).__name__}")
    data = pkcs12.serialize_key_and_certificates(
        b"localhost", key, x509.load_pem_x509_certificate(cert_path.read_bytes()),
        [x509.load_pem_x509_certificate(ca.ca_path.read_bytes())],
        serialization.BestAvailableEncryption(password.encode()))
    path.write_bytes(data)
    path.chmod(0o600)
    return path
