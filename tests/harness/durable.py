"""A Tansu broker with durable storage, for broker-restart tests: its log lives in a loopback S3 (a moto
server), so killing the broker process and starting it again on the same port loses nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from pyconnect.testing.brokers import TANSU_CLIENT_OVERRIDES, Broker, _wait_port, free_port, tansu_binary


@dataclass
class DurableBroker:
    """A Tansu process over an S3 bucket; `restart()` kills it (-9) and starts another on the same port."""

    port: int
    env: dict[str, str]
    bucket: str
    process: subprocess.Popen[bytes] | None = None
    restarts: int = 0
    logs: list[str] = field(default_factory=list)

    @property
    def broker(self) -> Broker:
        # Without the one-record batches of TANSU_CLIENT_OVERRIDES: each batch is an S3 write here, and
        # one write per record is too slow to keep up with a stream (the tests read ends from Fetch).
        quirks = {k: v for k, v in TANSU_CLIENT_OVERRIDES.items() if k not in ("batch.num.messages", "linger.ms")}
        return Broker(f"127.0.0.1:{self.port}", "tansu", process=self.process, quirks=quirks)

    def start(self) -> DurableBroker:
        url = f"tcp://127.0.0.1:{self.port}"
        log = tempfile.NamedTemporaryFile(prefix="tansu-s3-", suffix=".log", delete=False)  # noqa: SIM115
        self.logs.append(log.name)
        self.process = subprocess.Popen(
            [tansu_binary(), "broker", "--listener-url", url, "--advertised-listener-url", url, "--cluster-id",
             "durable", "--storage-engine", f"s3://{self.bucket}/", "--silent"],
            stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **self.env}, start_new_session=True)
        _wait_port(self.port)
        return self

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)

    def stop(self) -> None:
        """SIGTERM, as a rolling restart stops a broker (kill -9 loses writes Tansu has acknowledged
        but not yet put to S3: a broker bug, see the test that uses this)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()

    def restart(self, graceful: bool = True) -> None:
        self.stop() if graceful else self.kill()
        self.start()
        self.restarts += 1


@contextmanager
def durable_broker() -> Iterator[DurableBroker]:
    """A moto S3 server and a Tansu broker storing in it; both stopped at the end."""
    s3_port = free_port()
    moto = shutil.which("moto_server") or os.path.join(os.path.dirname(sys.executable), "moto_server")
    server = subprocess.Popen([moto, "-H", "127.0.0.1", "-p", str(s3_port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    broker: DurableBroker | None = None
    try:
        _wait_port(s3_port)
        import boto3

        endpoint = f"http://127.0.0.1:{s3_port}"
        boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="x", aws_secret_access_key="y",
                     region_name="us-east-1").create_bucket(Bucket="tansu")
        env = {"AWS_ENDPOINT": endpoint, "AWS_ALLOW_HTTP": "true", "AWS_ACCESS_KEY_ID": "x",
               "AWS_SECRET_ACCESS_KEY": "y", "AWS_DEFAULT_REGION": "us-east-1"}
        broker = DurableBroker(free_port(), env, "tansu").start()
        yield broker
    finally:
        if broker is not None:
            broker.kill()
        server.kill()
        server.wait(10)
