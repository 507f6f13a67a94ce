"""A WAN stand-in: a loopback TCP proxy that delays every byte by a fixed one-way time in each direction.

No netem on these machines (the kernel has no netem qdisc), so latency between "data centres" is made
by this proxy, put in front of a Tansu broker that advertises the proxy's address (as tls_real.py does
with stunnel): every connection a client makes, bootstrap and data, crosses the delay.

Invariants:
- bytes leave in the order they arrived, each chunk no earlier than `delay` after it was read;
- each direction of each connection has its own queue; a half-close (EOF) is passed on after the
  delay, behind the bytes that preceded it;
- a direction holds at most CAP_BYTES queued: past that it stops reading (TCP back-pressure on the
  sender), so the proxy's memory stays bounded whatever the link's bandwidth-delay product;
- the delay can be changed while the proxy runs (a line "MS" on its stdin), for filling topics fast
  and then measuring; a chunk never overtakes an earlier one, so lowering it never reorders bytes.

What it is not: the proxy terminates TCP on both sides, so a client's TCP window is never the limit
(on a real WAN, socket receive buffers smaller than the bandwidth-delay product cap a connection's
rate). The bandwidth is loopback's, shared with the brokers' CPU.

Run in a process of its own (`WanProxy` below; `python -m tests.harness.wan_proxy LISTEN TARGET MS`) so
that it never competes with the measured client for the GIL.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pyconnect.testing.brokers import Broker, free_port, start_tansu

REPO = Path(__file__).resolve().parents[2]
CHUNK = 1 << 20  # read size; a chunk is forwarded as one write
CAP_BYTES = 64 << 20  # queued bytes per direction before the proxy stops reading


class _Delay:
    """The current one-way delay in seconds, shared by every connection."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds


async def _forward(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: _Delay) -> None:
    """Copy reader -> writer, each chunk released `delay` after it was read (FIFO, bounded)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
    room = asyncio.Event()
    room.set()
    queued = 0

    async def release() -> None:
        nonlocal queued
        while True:
            due, data = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if not data:
                if writer.can_write_eof():
                    writer.write_eof()
                return
            writer.write(data)
            await writer.drain()
            queued -= len(data)
            if queued < CAP_BYTES:
                room.set()

    sender = asyncio.create_task(release())
    try:
        while True:
            data = await reader.read(CHUNK)
            queued += len(data)
            queue.put_nowait((loop.time() + delay.seconds, data))
            if not data:
                break
            if queued >= CAP_BYTES:
                room.clear()
                await room.wait()
        await sender
    except (ConnectionError, OSError):
        sender.cancel()
    finally:
        writer.close()


async def _serve(listen: int, target: int, delay: _Delay) -> None:
    async def connection(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            server_r, server_w = await asyncio.open_connection("127.0.0.1", target)
        except OSError:
            client_w.close()
            return
        await asyncio.gather(_forward(client_r, server_w, delay), _forward(server_r, client_w, delay),
                             return_exceptions=True)

    server = await asyncio.start_server(connection, "127.0.0.1", listen, limit=CHUNK)
    print(f"listening {server.sockets[0].getsockname()[1]}", flush=True)
    loop = asyncio.get_running_loop()
    control = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(control), sys.stdin)
    async with server:
        while line := await control.readline():  # stdin closed: the owner is gone, so stop
            delay.seconds = float(line) / 1000.0
            print(f"delay {line.decode().strip()}", flush=True)


class WanProxy:
    """The proxy in a child process: 127.0.0.1:`port` -> 127.0.0.1:`target`, `one_way_ms` each way."""

    def __init__(self, target: int, one_way_ms: float, port: int = 0) -> None:
        self.target, self.one_way_ms = target, one_way_ms
        # its stderr (connections cut at shutdown) goes to a file, not into the caller's output
        self.log = tempfile.NamedTemporaryFile(prefix="wan-proxy-", suffix=".log", delete=False)  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.harness.wan_proxy", str(port), str(target), str(one_way_ms)],
            cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True,
            start_new_session=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # blocks until the proxy listens (or exits: "")
        if not line.startswith("listening "):
            self.stop()
            raise RuntimeError(f"wan proxy did not start: {line!r}")
        self.port = int(line.split()[1])

    def set_delay(self, one_way_ms: float) -> None:
        """Change the one-way delay; returns once the proxy applied it."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"{one_way_ms}\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer.startswith("delay "):
            raise RuntimeError(f"wan proxy did not take the delay: {answer!r}")
        self.one_way_ms = one_way_ms

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


@dataclass
class FarBroker:
    """A Tansu broker reachable only through a WanProxy: `broker.bootstrap` is the proxy's address."""

    broker: Broker
    proxy: WanProxy

    @property
    def bootstrap(self) -> str:
        return self.broker.bootstrap

    def stop(self) -> None:
        self.broker.stop()
        self.proxy.stop()


def start_far_tansu(name: str, one_way_ms: float) -> FarBroker:
    """A Tansu broker behind a WanProxy; it advertises the proxy, so every client connection is delayed. Tansu on
    every run: the broker must advertise the proxy's port; the harness's Kafka nodes advertise their own."""
    port = free_port()
    proxy = WanProxy(port, one_way_ms)
    try:
        broker = start_tansu(name, port, advertised_port=proxy.port)
    except (TimeoutError, RuntimeError):
        proxy.stop()
        raise
    return FarBroker(broker, proxy)


def _main() -> None:
    listen, target, one_way_ms = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    asyncio.run(_serve(listen, target, _Delay(one_way_ms / 1000.0)))


if __name__ == "__main__":
    _main()
