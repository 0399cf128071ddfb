"""The real program on a pseudo-terminal of its own, for tests of how it meets its terminal and
signals: ``python -m casino_tui`` in a new session whose controlling terminal is the PTY (as in
a terminal window or an SSH session), everything it writes kept as raw bytes, and a look at
/proc for every process of that session."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from serve_support import wait_until  # re-exported for the PTY tests

# Escape sequences: CSI (colours, cursor, modes), OSC (titles, queries) and two-byte ones.
_ESCAPES = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]")

# What a full-screen app writes when it leaves: the normal screen, the cursor shown and mouse
# reporting off (each mode it had turned on).
RESTORE_SEQUENCES = (b"\x1b[?1049l", b"\x1b[?25h", b"\x1b[?1000l", b"\x1b[?1003l",
                     b"\x1b[?1006l")


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name; None when there is no process."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def session_processes(sid: int) -> list[int]:
    """Every live process (not a zombie) of session ``sid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields is not None and fields[0] != "Z" and int(fields[3]) == sid:
                found.append(int(entry.name))
    return found


def children(pid: int) -> list[int]:
    """The live child processes of ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields is not None and fields[0] != "Z" and int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(
            errors="replace")
    except OSError:
        return ""


def app_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A UTF-8 terminal, private data and config folders, computers that move at once."""
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    (config / "settings.json").write_text(json.dumps({"speed": "instant"}))
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "PYTHONPATH", "TMPDIR")}
    env.update(HOME=str(tmp_path), TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8",
               CASINO_TUI_DATA_DIR=str(tmp_path / "data"), CASINO_TUI_CONFIG_DIR=str(config))
    env.update(extra)
    return env


class PtyApp:
    """``python -m casino_tui ARGS`` on a PTY of ``size`` (columns, rows) with ``env``
    (``argv``: another command instead)."""

    def __init__(self, args: Sequence[str], env: Mapping[str, str],
                 size: tuple[int, int] = (80, 24), *,
                 argv: Sequence[str] | None = None) -> None:
        cols, rows = size
        argv = list(argv) if argv is not None else [sys.executable, "-m", "casino_tui", *args]
        pid, master = pty.fork()
        if pid == 0:  # the child: the PTY is its controlling terminal, it leads a new session
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
                os.execve(sys.executable, argv, dict(env))
            finally:
                os._exit(127)
        self.pid = pid
        self.master: int | None = master
        self._out = bytearray()
        self._lock = threading.Lock()
        self._status: int | None = None
        self._stop = threading.Event()
        self._reader = threading.Thread(target=self._read, args=(master,), daemon=True)
        self._reader.start()

    def _read(self, fd: int) -> None:
        while not self._stop.is_set():
            if not select.select([fd], [], [], 0.05)[0]:
                continue
            try:
                data = os.read(fd, 65536)
            except OSError:  # EIO: every process of the session has closed the terminal
                return
            if not data:
                return
            with self._lock:
                self._out += data

    # ------------------------------------------------------------------ output
    def raw(self, since: int = 0) -> bytes:
        with self._lock:
            return bytes(self._out[since:])

    def mark(self) -> int:
        """Where the output is now (for :meth:`raw` and :meth:`text` from here on)."""
        with self._lock:
            return len(self._out)

    def text(self, since: int = 0) -> str:
        """The output without escape sequences, decoded leniently."""
        return _ESCAPES.sub(b"", self.raw(since)).decode("utf-8", errors="replace")

    def wait_for(self, pattern: str, since: int = 0, timeout: float = 20) -> None:
        wait_until(lambda: re.search(pattern, self.text(since)), timeout,
                   f"{pattern!r} on the screen", detail=lambda: self.text(since)[-3000:])

    def send(self, keys: str | bytes) -> None:
        assert self.master is not None
        os.write(self.master, keys.encode() if isinstance(keys, str) else keys)

    def hang_up(self) -> None:
        """Close the terminal (like closing its window or a dropped SSH connection): the
        kernel sends the session's leader SIGHUP."""
        if self.master is not None:
            self._stop.set()  # a read under way would keep the terminal open
            self._reader.join()
            os.close(self.master)
            self.master = None

    # ------------------------------------------------------------------ the process
    def poll(self) -> int | None:
        """The exit code once the program has ended (-N: ended by signal N)."""
        if self._status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self._status = os.waitstatus_to_exitcode(status)
        return self._status

    def wait_exit(self, timeout: float = 10) -> int:
        wait_until(lambda: self.poll() is not None, timeout, "the program to exit",
                   detail=lambda: self.text()[-2000:])
        assert self._status is not None
        return self._status

    def close(self) -> None:
        """Kill whatever is left of the session and release the terminal (test teardown)."""
        for pid in [*session_processes(self.pid), self.pid]:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        if self._status is None:
            try:
                _, status = os.waitpid(self.pid, 0)
                self._status = os.waitstatus_to_exitcode(status)
            except ChildProcessError:
                pass
        self.hang_up()
