"""Certificates and TLS brokers for the real-TLS tests: expired and wrong-host server certificates,
client certificates, PKCS12 bundles, and Tansu behind an stunnel that may demand client certificates.

Builds on pyconnect.testing.tls (a CA, Tansu advertising the stunnel port under `localhost`); the stunnel
here adds `verify = 2` + `CAfile` for mutual TLS (Tansu cannot serve TLS itself).
"""

from __future__ import annotations

import datetime
import ipaddress
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from pyconnect.testing.brokers import Broker, _wait_port, free_port, tansu_binary
from pyconnect.testing.tls import CertificateAuthority, Stunnel, TlsBroker

PEM = serialization.Encoding.PEM


@dataclass(frozen=True)
class Issued:
    """A certificate and its key (PEM files), and the key object for PKCS12 bundles."""

    cert: Path
    key: Path
    key_object: ec.EllipticCurvePrivateKey
    cert_object: x509.Certificate


def issue(ca: CertificateAuthority, name: str, *, client: bool = False, expired: bool = False) -> Issued:
    """A certificate signed by `ca` for `name`: a server certificate (DNS name + 127.0.0.1) or a client one;
    `expired` makes it valid only for a day that ended yesterday."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    start, end = (now - datetime.timedelta(days=3), now - datetime.timedelta(days=1)) if expired else \
        (now - datetime.timedelta(minutes=5), now + datetime.timedelta(days=1))
    usage = ExtendedKeyUsageOID.CLIENT_AUTH if client else ExtendedKeyUsageOID.SERVER_AUTH
    builder = (x509.CertificateBuilder()
               .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
               .issuer_name(ca._subject).public_key(key.public_key())
               .serial_number(x509.random_serial_number()).not_valid_before(start).not_valid_after(end)
               .add_extension(x509.ExtendedKeyUsage([usage]), critical=False))
    if not client:
        builder = builder.add_extension(x509.SubjectAlternativeName(
            [x509.DNSName(name), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
    cert = builder.sign(ca._key, hashes.SHA256())
    stem = ca.directory / f"{name}-{'client' if client else 'server'}{'-expired' if expired else ''}-" \
                          f"{x509.random_serial_number() % 10**6}"
    cert_path, key_path = stem.with_suffix(".crt.pem"), stem.with_suffix(".key.pem")
    cert_path.write_bytes(cert.public_bytes(PEM))
    key_path.write_bytes(key.private_bytes(PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    key_path.chmod(0o600)
    return Issued(cert_path, key_path, key, cert)


def pkcs12_bundle(issued: Issued, password: str, path: Path) -> Path:
    """`issued` as a password-protected PKCS12 keystore (what Java's ssl.keystore.type=PKCS12 reads)."""
    path.write_bytes(pkcs12.serialize_key_and_certificates(
        b"client", issued.key_object, issued.cert_object, None,
        serialization.BestAvailableEncryption(password.encode())))
    return path


def pem_keystore(issued: Issued, path: Path) -> Path:
    """Key and certificate in one PEM file (Java's ssl.keystore.type=PEM with ssl.keystore.location)."""
    path.write_bytes(issued.key.read_bytes() + issued.cert.read_bytes())
    return path


@dataclass
class MutualStunnel(Stunnel):
    """An stunnel that also demands a client certificate signed by `client_ca` (None: one-way TLS)."""

    client_ca: Path | None = None

    def start(self) -> MutualStunnel:
        from pyconnect.testing.tls import stunnel_binary
        binary = stunnel_binary()
        assert binary is not None, "stunnel is not installed"
        conf = self.directory / f"stunnel-{self.accept}.conf"
        verify = f"verify = 2\nCAfile = {self.client_ca}\n" if self.client_ca else ""
        conf.write_text(f"foreground = yes\npid = {self.directory / f'stunnel-{self.accept}.pid'}\n"
                        f"output = {self.directory / f'stunnel-{self.accept}.log'}\ndebug = 5\n"
                        f"[kafka]\naccept = 127.0.0.1:{self.accept}\nconnect = 127.0.0.1:{self.connect}\n"
                        f"cert = {self.cert}\nkey = {self.key}\n{verify}")
        self.process = subprocess.Popen([binary, str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        start_new_session=True)
        try:
            _wait_port(self.accept)
        except TimeoutError:
            self.stop()
            raise
        return self

    def log_text(self) -> str:
        path = self.directory / f"stunnel-{self.accept}.log"
        return path.read_text(errors="replace") if path.exists() else ""


def start_broker(name: str, server: Issued, work: Path, client_ca: Path | None = None) -> TlsBroker:
    """Tansu behind stunnel presenting `server`, advertising `localhost:<tls port>`; mTLS when `client_ca`."""
    work.mkdir(parents=True, exist_ok=True)
    plain, tls = free_port(), free_port()
    log = (work / f"tansu-{name}.log").open("wb")
    proc = subprocess.Popen([tansu_binary(), "broker", "--listener-url", f"tcp://127.0.0.1:{plain}",
                             "--advertised-listener-url", f"tcp://localhost:{tls}", "--cluster-id", name,
                             "--silent"], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    log.close()
    broker = Broker(f"127.0.0.1:{plain}", "tansu", process=proc, log_path=str(work / f"tansu-{name}.log"))
    try:
        _wait_port(plain)
        tunnel = MutualStunnel(tls, plain, server.cert, server.key, work, client_ca=client_ca).start()
    except Exception:
        broker.stop()
        raise
    return TlsBroker(broker, tunnel, f"localhost:{tls}")
