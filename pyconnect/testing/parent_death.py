"""Child processes that die with the process that started them, even when it is killed with SIGKILL.

`die_with_parent()` gives `subprocess.Popen(preexec_fn=...)` a function that asks Linux (prctl
PR_SET_PDEATHSIG) to send the child SIGKILL when its parent goes away. The demo and `local-broker` start
their brokers with it, so `kill -9` of either leaves no broker listening.

Invariants:
- Linux delivers the signal when the *thread* that forked the child ends, not the process. The request is
  therefore made only for children started from the main thread (which lives as long as the process): a
  broker started from a pool thread is not killed when that thread finishes. Elsewhere (another thread, a
  system without prctl) `die_with_parent()` returns None, and the child outlives its parent as before.
- A parent that died between the fork and the prctl call would never send the signal: the child checks
  its parent pid after the call and kills itself if the parent is already gone.
- The function runs in the child between fork and exec, where taking a lock another thread held at the
  fork could hang forever: libc and prctl are looked up here, in the parent, at import; the child only calls.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
from collections.abc import Callable

PR_SET_PDEATHSIG = 1  # linux/prctl.h
_SIGKILL = int(signal.SIGKILL)  # a plain int: ctypes passes it as the C int prctl takes


def _load_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    except OSError:
        return None
    prctl: Callable[..., int] = libc.prctl
    return prctl


_PRCTL = _load_prctl()


def die_with_parent() -> Callable[[], None] | None:
    """A `preexec_fn` that makes the child die (SIGKILL) with the calling process, or None where that cannot
    be asked for reliably (see the module docstring)."""
    prctl = _PRCTL
    if prctl is None or threading.current_thread() is not threading.main_thread():
        return None
    parent = os.getpid()

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the request: nobody will send the signal
            os.kill(os.getpid(), _SIGKILL)

    return preexec
