"""TLS endpoints for tests: a throw-away CA (PyPI `cryptography`) and Tansu behind stunnel.

Tansu cannot serve TLS itself, so each broker listens on a
plain loopback port P and advertises `localhost:T`, where stunnel accepts TLS with a server certificate
for `localhost` signed by the test CA and forwards to P. Every client that follows the broker's metadata
therefore talks TLS; P is only the tunnel's back end.
"""

from __future__ import annotations

import datetime
import ipaddress
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from pyconnect.testing.brokers import Broker, _wait_port, free_port, tansu_binary

PEM = serialization.Encoding.PEM


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


@dataclass
class CertificateAuthority:
    """A self-signed CA whose certificate is `ca_path` (PEM), able to issue server certificates."""

    directory: Path
    name: str = "pyconnect test CA"
    ca_path: Path = field(init=False)

    def __post_init__(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self._key = _key()
        self._subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, self.name)])
        now = datetime.datetime.now(datetime.UTC)
        self._cert = (x509.CertificateBuilder().subject_name(self._subject).issuer_name(self._subject)
                      .public_key(self._key.public_key())
                      .serial_number(x509.random_serial_number())
                      .not_valid_before(now - datetime.timedelta(minutes=5))
                      .not_valid_after(now + datetime.timedelta(days=1))
                      .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                      .sign(self._key, hashes.SHA256()))
        self.ca_path = self.directory / f"{self._slug()}-ca.pem"
        self.ca_path.write_bytes(self._cert.public_bytes(PEM))

    def _slug(self) -> str:
        return "".join(c if c.isalnum() else "-" for c in self.name)

    def issue(self, hostname: str = "localhost") -> tuple[Path, Path]:
        """A server certificate for `hostname` (and 127.0.0.1): paths of its PEM certificate and key."""
        key = _key()
        now = datetime.datetime.now(datetime.UTC)
        names = [x509.DNSName(hostname), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
        cert = (x509.CertificateBuilder()
                .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hostname)]))
                .issuer_name(self._subject).public_key(key.public_key())
                .serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(minutes=5))
                .not_valid_after(now + datetime.timedelta(days=1))
                .add_extension(x509.SubjectAlternativeName(names), critical=False)
                .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                .sign(self._key, hashes.SHA256()))
        stem = self.directory / f"{self._slug()}-{hostname}-{x509.random_serial_number() % 10**6}"
        cert_path, key_path = stem.with_suffix(".crt.pem"), stem.with_suffix(".key.pem")
        cert_path.write_bytes(cert.public_bytes(PEM))
        key_path.write_bytes(_pem_key(key))
        key_path.chmod(0o600)
        return cert_path, key_path


def stunnel_binary() -> str | None:
    """The stunnel executable (Debian's `stunnel4`), or None when it is not installed."""
    return shutil.which("stunnel4") or shutil.which("stunnel")


@dataclass
class Stunnel:
    """One stunnel server process: TLS on 127.0.0.1:`accept` forwarded to plain 127.0.0.1:`connect`."""

    accept: int
    connect: int
    cert: Path
    key: Path
    directory: Path
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> Stunnel:
        binary = stunnel_binary()
        if binary is None:
            raise RuntimeError("stunnel is not installed (Debian package stunnel4; scripts/setup.sh installs it)")
        conf = self.directory / f"stunnel-{self.accept}.conf"
        # foreground + our own pid file: the harness owns the process and stops it by its pid.
        conf.write_text(f"foreground = yes\npid = {self.directory / f'stunnel-{self.accept}.pid'}\n"
                        f"output = {self.directory / f'stunnel-{self.accept}.log'}\ndebug = 4\n"
                        f"[kafka]\naccept = 127.0.0.1:{self.accept}\nconnect = 127.0.0.1:{self.connect}\n"
                        f"cert = {self.cert}\nkey = {self.key}\n")
        self.process = subprocess.Popen([binary, str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        start_new_session=True)
        try:
            _wait_port(self.accept)
        except TimeoutError:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


@dataclass
class TlsBroker:
    """A Tansu broker reachable only through TLS at `bootstrap` (`localhost:<tls port>`)."""

    broker: Broker
    tunnel: Stunnel
    bootstrap: str

    def stop(self) -> None:
        self.tunnel.stop()
        self.broker.stop()


def start_tls_tansu(name: str, ca: CertificateAuthority, directory: Path | None = None) -> TlsBroker:
    """Tansu on a plain loopback port behind stunnel, advertising the TLS port under `localhost`."""
    work = directory or Path(tempfile.mkdtemp(prefix=f"tls-{name}-"))
    plain, tls = free_port(), free_port()
    log = (work / f"tansu-{name}.log").open("wb")
    proc = subprocess.Popen([tansu_binary(), "broker", "--listener-url", f"tcp://127.0.0.1:{plain}",
                             "--advertised-listener-url", f"tcp://localhost:{tls}", "--cluster-id", name,
                             "--silent"], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    log.close()  # the child holds its own descriptor
    broker = Broker(f"127.0.0.1:{plain}", "tansu", process=proc, log_path=str(work / f"tansu-{name}.log"))
    try:
        _wait_port(plain)
        cert, key = ca.issue("localhost")
        tunnel = Stunnel(tls, plain, cert, key, work).start()
    except Exception:
        broker.stop()
        raise
    return TlsBroker(broker, tunnel, f"localhost:{tls}")


def tls_client_settings(ca: CertificateAuthority) -> dict[str, str]:
    """librdkafka settings of a client that trusts `ca` (for the test's own producers and readers)."""
    return {"security.protocol": "SSL", "ssl.ca.location": str(ca.ca_path)}
