"""The demo's terminal: one live table, and a closed pipe treated as a request to stop.

On a terminal the table is redrawn in place every second. When the output is piped (`| tee out.log`)
the table is printed whole every `PIPED_EVERY` seconds, so a log file holds readable snapshots rather
than carriage returns. Nothing else is written here: the demo's log goes to a file.

A write that fails because the reader went away (Ctrl-C kills `tee` too, or the pager quit) sets the
stop event and silences every later write, so the demo goes on to stop what it started instead of
dying on BrokenPipeError half-way through its shutdown.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import TextIO

PIPED_EVERY = 5.0
HEADER = ("flow", "topic", "produced", "replicated", "rate/s", "lag")


@dataclass(frozen=True)
class Row:
    """One topic of one flow, as the table shows it."""

    flow: str
    topic: str
    produced: int
    replicated: int
    rate: float

    @property
    def lag(self) -> int:
        return max(0, self.produced - self.replicated)

    def cells(self) -> tuple[str, ...]:
        return (self.flow, self.topic, f"{self.produced:,}", f"{self.replicated:,}", f"{self.rate:,.0f}",
                f"{self.lag:,}")


def render(rows: list[Row], elapsed: float) -> list[str]:
    """The table's lines: a title line, the header, one line per row."""
    table = [HEADER, *(row.cells() for row in rows)]
    widths = [max(len(line[i]) for line in table) for i in range(len(HEADER))]
    lines = [f"replication after {elapsed:,.0f} s"]
    for line in table:
        lines.append("  ".join(cell.ljust(w) if i < 2 else cell.rjust(w)
                               for i, (cell, w) in enumerate(zip(line, widths, strict=True))))
    return lines


class DemoTerminal:
    """Writes to `out` until its reader goes away; then sets `stop` and writes nothing more."""

    def __init__(self, out: TextIO, stop: threading.Event) -> None:
        self._out = out
        self._stop = stop
        self._closed = False
        self._tty = out.isatty()
        self._drawn = 0  # lines of the last table drawn in place
        self._last_snapshot = float("-inf")
        self._last_rows: list[str] = []

    @property
    def closed(self) -> bool:
        return self._closed

    def say(self, text: str) -> None:
        """A line of its own, below the table if one is drawn in place."""
        self._drawn = 0
        self._write(text + "\n")

    def table(self, rows: list[Row], elapsed: float, final: bool = False) -> None:
        lines = render(rows, elapsed)
        if self._tty:
            # Back to the first line of the previous table, clear to the end, draw again.
            up = f"\x1b[{self._drawn}F\x1b[J" if self._drawn else ""
            self._write(up + "\n".join(lines) + "\n")
            self._drawn = len(lines)
            return
        now = time.monotonic()
        # The final table is printed unless the last snapshot already shows the same figures.
        due = lines[1:] != self._last_rows if final else now - self._last_snapshot >= PIPED_EVERY
        if due:
            self._last_snapshot, self._last_rows = now, lines[1:]
            self._write("\n".join(lines) + "\n\n")

    def _write(self, text: str) -> None:
        if self._closed:
            return
        try:
            self._out.write(text)
            self._out.flush()
        except (BrokenPipeError, ValueError, OSError):
            self._close()

    def _close(self) -> None:
        self._closed = True
        self._stop.set()
        try:
            # Point the descriptor at /dev/null: the interpreter flushes stdout once more at exit, and
            # that flush would fail again and print a traceback to a terminal that may still be there.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._out.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass
