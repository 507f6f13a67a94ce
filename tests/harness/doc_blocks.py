"""Run a guide's marked shell blocks, in order, against local brokers: a guide that stops working fails a test.

The marker (an HTML comment, so mkdocs renders the block as plain bash and readers never see it) goes on the
line before a ```bash fence:

    <!-- test -->               run the block; it must exit 0 within BLOCK_TIMEOUT seconds
    <!-- test: background -->   start the block and leave it running (a worker, a MirrorMaker process: what a
                                reader starts in a second terminal); it is stopped with SIGTERM after the guide
    <!-- test: stop -->         a block that stops those processes (`kill -TERM <pid>`, Ctrl-C): the test does not
                                run it, it sends SIGTERM to every background block's processes and requires
                                each to exit 0 within STOP_TIMEOUT seconds (a graceful stop, as guides promise)

Unmarked blocks (installing, starting brokers the test provides, sketches with made-up hosts) are not run.

Placeholders: guides write the addresses a reader gets from `replikafka local-broker --port 9092` and
`--port 9093`, and the REST ports Kafka Connect uses. The test maps them to its own:
    localhost:9092 -> cluster A's bootstrap     localhost:9093 -> cluster B's bootstrap
    localhost:8083, localhost:8084 (also 127.0.0.1:...) -> free ports of this run
and, as a reader of docs/brokers.md does for the local broker, adds its client settings after every
`bootstrap.servers` line of a properties file the guide writes (`<alias>.bootstrap.servers` gets them as
`<alias>.KEY`, `<alias>.producer.KEY` and `<alias>.consumer.KEY`).

Invariants:
- Blocks run in document order, each `bash -e -o pipefail` in one working directory per guide (files the guide
  writes are there), with the venv's `bin` first on PATH, so `replikafka` and `python` are this checkout's, and
  `docs` linked to the checkout's, so `bash docs/runbooks/check-health.sh` works as in a clone.
- A block that fails or overruns raises AssertionError naming the guide's file and line, the block as run, its
  output and the end of every background process's log; nothing it started outlives the run (each block and
  background process is its own process group, stopped as a group).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from pyconnect.testing.brokers import Broker, free_port

DOCS = Path(__file__).resolve().parents[2] / "docs"
BLOCK_TIMEOUT = 120.0  # seconds: a guide's slowest step (waiting for a first checkpoint) takes well under this
STOP_TIMEOUT = 30.0
_MARKER = re.compile(r"^<!--\s*test(?::\s*(?P<kind>[\w-]+))?\s*-->\s*$")
_FENCE = re.compile(r"^```(?P<lang>\w*)\s*$")
_KINDS = ("run", "background", "stop")
_BOOTSTRAPS = {"localhost:9092": "A", "localhost:9093": "B"}
_REST = re.compile(r"\b(localhost|127\.0\.0\.1):(808[34])\b")
_BOOTSTRAP_LINE = re.compile(r"^(?P<indent>\s*)(?P<alias>[\w-]+\.)?bootstrap\.servers\s*=\s*localhost:909[23]\s*$")


@dataclass(frozen=True)
class Block:
    """One marked block: what to run, how, and where the guide has it."""

    kind: str
    text: str
    path: Path
    line: int

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def extract(path: Path) -> list[Block]:
    """The marked blocks of a Markdown file, in order. A marker that is not followed by a bash fence, or an
    unknown kind, is an error naming the line (a typo must not silently drop a block from the test)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    for i, line in enumerate(lines):
        marker = _MARKER.match(line.strip())
        if not marker:
            continue
        kind = marker.group("kind") or "run"
        fence = _FENCE.match(lines[i + 1]) if i + 1 < len(lines) else None
        if kind not in _KINDS or fence is None or fence.group("lang") not in ("bash", "sh"):
            raise ValueError(f"{path}:{i + 1}: a test marker must be `<!-- test -->`, `<!-- test: background -->` or "
                             "`<!-- test: stop -->` on the line before a ```bash fence")
        end = next((j for j in range(i + 2, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            raise ValueError(f"{path}:{i + 2}: the ```bash fence is never closed")
        blocks.append(Block(kind, "\n".join(lines[i + 2:end]) + "\n", path, i + 3))
    return blocks


@dataclass
class Substitution:
    """The placeholder addresses of a guide mapped to this run's brokers and ports."""

    brokers: dict[str, Broker]  # "A" and "B"
    rest_ports: dict[str, int] = field(default_factory=lambda: {"8083": free_port(), "8084": free_port()})

    def apply(self, text: str) -> str:
        out = [self._line(line) for line in text.splitlines()]
        return "\n".join(out) + "\n"

    def _line(self, line: str) -> str:
        extra = ""
        m = _BOOTSTRAP_LINE.match(line)
        if m:
            broker = self.brokers[_BOOTSTRAPS[line.split("=", 1)[1].strip()]]
            alias, indent = m.group("alias") or "", m.group("indent")
            scopes = [alias] if not alias else [alias, f"{alias}producer.", f"{alias}consumer."]
            extra = "".join(f"\n{indent}{scope}{k}={v}" for scope in scopes for k, v in broker.client_overrides.items())
        for placeholder, name in _BOOTSTRAPS.items():
            line = line.replace(placeholder, self.brokers[name].bootstrap)
        return _REST.sub(lambda r: f"{r.group(1)}:{self.rest_ports[r.group(2)]}", line) + extra


class GuideRun:
    """Runs one guide's blocks in `workdir`; `close()` stops what its background blocks started."""

    def __init__(self, workdir: Path, substitution: Substitution) -> None:
        self.workdir, self.sub = workdir, substitution
        (workdir / "docs").symlink_to(DOCS, target_is_directory=True)  # `bash docs/runbooks/x.sh`, as in a clone
        self.background: list[tuple[subprocess.Popen[bytes], Path]] = []  # running, until a stop block
        self.stopped: list[tuple[subprocess.Popen[bytes], Path]] = []
        self.timings: list[tuple[str, float]] = []  # (block's place, seconds it ran): what makes a guide slow
        bin_dir = str(Path(sys.executable).parent)
        self.env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
                    "PYTHONUNBUFFERED": "1"}

    def run_all(self, blocks: list[Block]) -> None:
        for block in blocks:
            self.run(block)

    def run(self, block: Block) -> None:
        script = self.sub.apply(block.text)
        if block.kind == "stop":
            self._stop_background(block)
            return
        self._check_background(block)
        args = ["bash", "-e", "-o", "pipefail", "-c", script]
        if block.kind == "background":
            log = self.workdir / f"background-{len(self.background)}.log"
            with open(log, "wb") as out:
                proc = subprocess.Popen(args, cwd=self.workdir, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                                        start_new_session=True)
            self.background.append((proc, log))
            return
        started = time.monotonic()
        proc = subprocess.Popen(args, cwd=self.workdir, env=self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            output, _ = proc.communicate(timeout=BLOCK_TIMEOUT)
            self.timings.append((block.where, time.monotonic() - started))
        except subprocess.TimeoutExpired:
            _stop_group(proc)
            output, _ = proc.communicate()
            what = f"did not finish in {BLOCK_TIMEOUT:.0f} s"
            raise AssertionError(self._report(block, script, output, what)) from None
        if proc.returncode != 0:
            raise AssertionError(self._report(block, script, output, f"exited with {proc.returncode}"))

    def _report(self, block: Block, script: str, output: bytes, what: str) -> str:
        parts = [f"the block at {block.where} {what}:", script.rstrip(), "-- its output:",
                 output.decode(errors="replace")[-4000:].rstrip()]
        for proc, log in self.background + self.stopped:
            state = "running" if proc.poll() is None else f"exited {proc.returncode}"
            tail = log.read_text(errors="replace").splitlines()[-15:]
            parts += [f"-- background {log.name} ({state}), last lines:", *tail]
        return "\n".join(parts)

    def _check_background(self, block: Block) -> None:
        """A worker the guide started that has died fails the guide here, not after the next block's timeout."""
        for proc, log in self.background:
            if proc.poll() is not None:
                tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
                raise AssertionError(f"before the block at {block.where}: {log.name} (a background block) exited "
                                     f"with {proc.returncode}; last lines:\n{tail}")

    def _stop_background(self, block: Block) -> None:
        stopping, self.background = self.background, []
        self.stopped += stopping
        for proc, log in stopping:
            _stop_group(proc)
            if proc.returncode != 0:
                tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
                raise AssertionError(f"the stop at {block.where}: {log.name} exited with {proc.returncode} after "
                                     f"SIGTERM, not 0; last lines:\n{tail}")

    def close(self) -> None:
        for proc, _log in self.background + self.stopped:
            _stop_group(proc)


def _stop_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the block's process group (a graceful stop, as Ctrl-C), then SIGKILL if it hangs. The group
    may outlive its leader (a command the block left running), so it is signalled even when the leader is gone."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    except ProcessLookupError:
        pass
