"""A debug trace of a move's way from one player's key to the other player's screen at a
server's table: off unless :data:`TRACE_ENV` names a file.

When on, each process on the way (the mover's app, the server's table channel, the other
player's app, and the load tool) appends one JSON line per step to that file:
``{"t": MONOTONIC, "cpu": CPU, "pid": PID, "stage": STAGE, "table": ID, "n": NUMBER, ...}``.
``t`` is ``time.monotonic()``, one clock for every process of the machine, so the steps of
one move line up across processes; ``cpu`` is the process's CPU time
(``time.process_time()``, all its threads), so a step's wall time can be told apart from the
CPU it took. ``python -m benchmarks.tracetables FILE`` follows each move through them. Each
line is one ``write`` to a file opened with ``O_APPEND``, so the lines of several processes
do not mix. The variable reaches a server's games (``serve`` passes it on); without it nothing
is written or even opened.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from typing import Any

TRACE_ENV = "CASINO_TUI_TABLE_TRACE"

_fd: int | None = None
_checked = False


def enabled() -> bool:
    """Whether steps are written (the variable is read once, at the first call)."""
    global _fd, _checked
    if not _checked:
        _checked = True
        path = os.environ.get(TRACE_ENV)
        if path:
            with contextlib.suppress(OSError):
                _fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    return _fd is not None


def note(stage: str, table: str, number: int, **extra: Any) -> None:
    """Write one step of a move (``number``: the table's event number it concerns)."""
    if not enabled() or _fd is None:
        return
    line = {"t": time.monotonic(), "cpu": time.process_time(), "pid": os.getpid(),
            "stage": stage, "table": table, "n": number, **extra}
    with contextlib.suppress(OSError):
        os.write(_fd, (json.dumps(line, separators=(",", ":")) + "\n").encode())


def reset() -> None:
    """Read the variable again at the next call (tests, a tool that sets it)."""
    global _fd, _checked
    if _fd is not None:
        with contextlib.suppress(OSError):
            os.close(_fd)
    _fd, _checked = None, False
