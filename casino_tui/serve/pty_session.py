"""One player's game: the normal app in its own process on its own pseudo-terminal.

The child is forked from the server's warm fork server (:mod:`casino_tui.serve.forkserver`),
or, without one, is a fresh ``sys.executable -m casino_tui``: either way the game's normal
``main()`` in a new session (``setsid``) whose controlling terminal is the PTY, so the stock
Textual driver runs unchanged: its output, colours, crashes and signals stay in that process
group. Keys from the SSH channel are written to the PTY;
window changes become ``ioctl(TIOCSWINSZ)`` (the kernel sends the app SIGWINCH); the app's
output is copied back to the channel.

What one session can cost the server is bounded (issue 27):

* the terminal size: at most :data:`MAX_COLUMNS` x :data:`MAX_ROWS` (the browser's cap);
  a client asking for more gets that much, and the log says so (once a session);
* window changes: at most :data:`RESIZES_PER_SECOND` reach the game (each one redraws the
  whole screen); the latest size of a burst is applied when the next may go;
* input: at most :data:`INPUT_RATE` bytes a second after a burst of :data:`INPUT_BURST`
  (a person typing, a paste of a chat line, a mouse moving send far less): a flood is slowed
  down, never dropped (what is not read stays with the client: SSH flow control), and the log
  says so once a minute at most; the SSH channel's window (:data:`INPUT_WINDOW`) bounds what
  the server holds of a session's input;
* output: the game's output is read from its PTY only while the channel's write buffer is
  under :data:`OUTPUT_BUFFER` bytes (SSH flow control): a client that does not read stops the
  game's output at the PTY, and the server holds at most that plus one read of it.

Ending a game the player did not quit (disconnect, idle timeout, server shutdown, the player
connecting again) is like a terminal hang-up: SIGHUP to the process group, a grace period to
exit cleanly, then SIGTERM and SIGKILL. The app saves after every move, so the game can be
continued later.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import logging
import os
import signal
import struct
import sys
import termios
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from casino_tui.table.trace import TRACE_ENV

from .forkserver import (
    SERVER_ENV_KEEP,
    ForkedGame,
    ForkServer,
    ForkServerError,
    autogroup_nice,
)

if TYPE_CHECKING:  # pragma: no cover
    import asyncssh

log = logging.getLogger("casino_tui.serve")

# Run in the child between fork and the game: make the PTY (fd 0) the controlling terminal of
# the new session, lower its priority (the first two arguments: steps, and the nice value of
# the server's scheduler autogroup or ""; forkserver.lower_priority does the same for a forked
# game), then become ``python -m casino_tui``. (A preexec_fn would do the same but is unsafe in
# a process with threads, which the server has.)
_CHILD_SHIM = (
    "import fcntl,os,sys,termios\n"
    "fcntl.ioctl(0,termios.TIOCSCTTY,0)\n"
    "n,g=int(sys.argv[1]),sys.argv[2]\n"
    "if n>0:\n"
    " try:os.nice(n)\n"
    " except OSError:pass\n"
    " if g:\n"
    "  try:open('/proc/self/autogroup','w').write(str(min(19,int(g)+n)))\n"
    "  except OSError:pass\n"
    "os.execv(sys.executable,[sys.executable,'-m','casino_tui',*sys.argv[3:]])"
)

# Undo the terminal modes a full-screen app turns on, for when it could not do so itself
# (killed, crashed): mouse reporting, focus events, bracketed paste, the kitty keyboard
# protocol, the hidden cursor and the alternate screen. Harmless when already off.
TERMINAL_RESET = (
    b"\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1015l\x1b[?1004l\x1b[?2004l"
    b"\x1b[<u\x1b[0m\x1b[?25h\x1b[?7h\x1b[?1049l"
)

# Variables of the server's own environment that the game needs: those that start the same
# Python (the fork server's own), and the tables' debug trace (casino_tui.table.trace, off
# unless set).
_SERVER_ENV_KEEP = (*SERVER_ENV_KEEP, TRACE_ENV)
# Variables a client may send (OpenSSH: SendEnv / SetEnv) that the game may see.
_CLIENT_ENV_KEEP = ("COLORTERM", "NO_COLOR")
_MAX_ENV_VALUE = 64
# A message for the player, shown by the game at start (the game reads the same name:
# casino_tui.__main__.NOTICE_ENV): set when the player's files could not be written.
NOTICE_ENV = "CASINO_TUI_NOTICE"
# Where every player's directory is (the daily deal's ranking reads their ledgers; the game
# reads the same name: casino_tui.stats.daily.PLAYERS_ENV).
PLAYERS_ENV = "CASINO_TUI_PLAYERS_DIR"


# The largest terminal a session gets (the browser's cap, casino_tui.web.server): a bigger
# one costs the game memory and the server bandwidth in proportion (100000x100000 made one
# game use 900 MB), and no screen shows more.
MAX_COLUMNS = 400
MAX_ROWS = 200
# A forked game draws its first frame (the title) at the server's priority and only then runs
# --session-nice steps below it, or after this many seconds without a first frame
# (forkserver.lower_after_first_frame).
TITLE_PRIORITY_LIMIT = 5.0
RESIZES_PER_SECOND = 10  # window changes passed on to the game, at most
INPUT_RATE = 4096  # bytes a second of keys from one client, after a burst of
INPUT_BURST = 16384
INPUT_WINDOW = 65536  # the SSH channel's receive window: input the server holds, at most
OUTPUT_BUFFER = 65536  # bytes waiting for a client before the game's PTY is read again
_READ_SIZE = 16384  # bytes read from the PTY (or the channel) at a time
# The most one read of a PTY's master gives (Linux's line discipline passes its 4 KiB buffer,
# less one byte): a read this long is a part of a longer output, whose rest is on its way.
PTY_CHUNK = 4095
# Seconds the server waits for the rest of an output that came in full PTY chunks, at most,
# to send it to the client as one SSH packet (_gather_output).
GATHER_WAIT = 0.002


def clamp_size(cols: int, rows: int) -> tuple[int, int]:
    """The terminal size a session gets for the one a client asked for: at most
    :data:`MAX_COLUMNS` x :data:`MAX_ROWS`; 0 (not given) is 80x24."""
    cols = max(1, min(int(cols or 80), MAX_COLUMNS))
    rows = max(1, min(int(rows or 24), MAX_ROWS))
    return cols, rows


class InputBudget:
    """A token bucket: ``rate`` bytes a second, ``burst`` at once. :meth:`take` says how long
    to wait before ``n`` bytes may go (0: now), and takes them."""

    def __init__(self, rate: float = INPUT_RATE, burst: float = INPUT_BURST,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self._tokens = burst
        self._at = clock()

    def take(self, n: int) -> float:
        now = self.clock()
        self._tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
        self._at = now
        self._tokens -= n
        return 0.0 if self._tokens >= 0 else -self._tokens / self.rate


def set_winsize(fd: int, cols: int, rows: int, xpixels: int = 0, ypixels: int = 0) -> None:
    """Set a PTY's window size (the foreground process group gets SIGWINCH), clamped to
    :func:`clamp_size`."""
    cols, rows = clamp_size(cols, rows)
    fcntl.ioctl(fd, termios.TIOCSWINSZ,
                struct.pack("HHHH", rows, cols, max(0, xpixels) & 0xFFFF,
                            max(0, ypixels) & 0xFFFF))


def get_winsize(fd: int) -> tuple[int, int]:
    """(columns, rows) of a PTY."""
    rows, cols, _x, _y = struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))
    return cols, rows


def client_wants_ascii(client_env: Mapping[str, str]) -> bool:
    """True when the client says its terminal uses a character set other than UTF-8
    (``LANG=en_US.ISO-8859-1``); an unset locale, ``C`` or ``POSIX`` count as UTF-8."""
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = client_env.get(name, "")
        if value:
            if "." not in value:
                return False
            codeset = value.split(".", 1)[1].split("@", 1)[0].lower().replace("-", "")
            return codeset != "utf8"
    return False


def child_environment(term: str, client_env: Mapping[str, str], home: Path, data_dir: Path,
                      config_dir: Path,
                      server_env: Mapping[str, str] | None = None, *,
                      players_dir: Path | None = None) -> dict[str, str]:
    """The game's environment: built afresh, never the server's whole environment.
    ``players_dir``: the directory of every player's files (for the daily deal's ranking)."""
    server_env = os.environ if server_env is None else server_env
    env = {k: server_env[k] for k in _SERVER_ENV_KEEP if k in server_env}
    for k in _CLIENT_ENV_KEEP:
        v = client_env.get(k)
        if v is not None and len(v) <= _MAX_ENV_VALUE and v.isprintable():
            env[k] = v
    env.update({
        "TERM": term,
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONUTF8": "1",
        "CASINO_TUI_DATA_DIR": str(data_dir),
        "CASINO_TUI_CONFIG_DIR": str(config_dir),
    })
    if players_dir is not None:
        env[PLAYERS_ENV] = str(players_dir)
    return env


def valid_term(term: str | None) -> str:
    """The client's TERM if it looks like a terminal name, else ``xterm-256color``."""
    term = (term or "").strip()
    if not term or len(term) > 64 or not all(c.isalnum() or c in "-_.+" for c in term):
        return "xterm-256color"
    return term


@dataclass
class SessionEnd:
    """How a session ended: ``reason`` is quit, exit, killed, disconnect, idle, shutdown,
    replaced (the player started another session) or browser (the player's game went on in a
    browser)."""

    reason: str
    status: int
    detail: str = ""


@dataclass
class PtyGame:
    """Runs one game for one SSH channel (asyncssh ``SSHServerProcess`` in binary mode)."""

    process: asyncssh.SSHServerProcess[bytes]
    term: str
    size: tuple[int, int, int, int]  # cols, rows, pixel width, pixel height
    env: dict[str, str]
    args: Sequence[str]
    cwd: Path
    idle_timeout: float | None = None  # seconds without input, None: never
    hangup_grace: float = 2.0
    on_started: Callable[[int], None] | None = None
    player: str = ""
    # Told, for each key from the client, the seconds from its arrival to the game's first
    # output after it (the operator's key-to-screen latency; see serve/metrics.py).
    on_key_latency: Callable[[float], None] | None = None
    # Where the game is forked from (a warm process: casino_tui.serve.forkserver); None, or
    # when it cannot fork now: a fresh ``python -m casino_tui``.
    forker: ForkServer | None = None
    # Steps of CPU priority below the server's (the server's --session-nice; 0: the same).
    nice: int = 0
    forked: bool = False  # the game was forked from the fork server
    pid: int | None = None
    hanging_up: bool = False  # the game is being hung up (disconnect, idle, shutdown, ...)
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    started_at: float = field(default_factory=time.monotonic)
    _proc: asyncio.subprocess.Process | ForkedGame | None = None
    _master: int = -1
    _last_input: float = field(default_factory=time.monotonic)
    _key_at: float | None = None  # when the first key not yet followed by output arrived
    _stop: asyncio.Future[SessionEnd] | None = None
    _stop_early: SessionEnd | None = None  # asked to stop before it had started
    input_bytes: int = 0  # bytes of input passed on to the game
    _budget: InputBudget = field(default_factory=InputBudget)
    _throttled_at: float = -1e9  # when the log last said the client's input is slowed down
    _clamp_told: bool = False  # the log said the client asked for too large a terminal
    _size_wanted: tuple[int, int, int, int] | None = None  # a window change not yet applied
    _resizer: asyncio.Task[None] | None = None
    _resized_at: float = -1e9

    # ------------------------------------------------------------------ public
    async def run(self) -> SessionEnd:
        """Start the game and copy data both ways until it ends; returns how it ended."""
        try:
            return await self._run()
        finally:
            self.ended.set()

    async def _run(self) -> SessionEnd:
        loop = asyncio.get_running_loop()
        self._stop = loop.create_future()
        if self._stop_early is not None:
            self._stop.set_result(self._stop_early)
        master, slave = os.openpty()
        self._master = master
        os.set_blocking(master, False)
        try:
            cols, rows, pw, ph = self.size
            self.note_size(cols, rows)
            set_winsize(master, cols, rows, pw, ph)
            self._proc = await self._start(slave)
        except BaseException:
            os.close(self._master)
            raise
        finally:
            os.close(slave)
        self.pid = self._proc.pid
        if self.on_started is not None:
            self.on_started(self.pid)
        self._resized_at = time.monotonic()
        pump_out = asyncio.create_task(self._pump_output())
        pump_in = asyncio.create_task(self._pump_input())
        waiters: list[asyncio.Future[Any]] = [
            asyncio.ensure_future(self._proc.wait()), pump_in, self._stop]
        idle = None
        if self.idle_timeout:
            idle = asyncio.create_task(self._idle_watch(self.idle_timeout))
            waiters.append(idle)
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            end = await self._finish(pump_out, pump_in)
        finally:
            for t in (pump_in, idle, waiters[0], self._resizer):
                if t is not None and not t.done():
                    t.cancel()
            if self._proc.returncode is None:  # cancelled: never leave the game running
                await self._terminate()
            if not pump_out.done():
                pump_out.cancel()
            with contextlib.suppress(OSError):
                os.close(self._master)  # (_start may have given the game a new terminal)
            self._master = -1  # (a later window change finds no terminal to size)
        return end

    async def _start(self, slave: int) -> asyncio.subprocess.Process | ForkedGame:
        """The game's process on the PTY ``slave``: forked from the fork server if there is
        one, else (or if that fails) a fresh Python."""
        if self.forker is not None:
            try:
                game = await self.forker.spawn(slave, self.args, self.env, self.cwd,
                                               self.nice, title_within=TITLE_PRIORITY_LIMIT)
            except ForkServerError as err:
                log.warning("player %s: a fresh process starts their game (%s)", self.player,
                            err)
                if err.sent:
                    # The fork server may still fork a game on this terminal (killed when
                    # its late answer comes): two games on one terminal fight over it (the
                    # second cannot make it its controlling terminal and exits). The fresh
                    # game gets a terminal of its own.
                    return await self._fresh_on_new_terminal()
            else:
                self.forked = True
                return game
        return await self._fresh(slave)

    async def _fresh(self, slave: int) -> asyncio.subprocess.Process:
        """A fresh ``python -m casino_tui`` on the PTY ``slave``."""
        group = autogroup_nice()  # the server's, for the game's new group below it
        return await asyncio.create_subprocess_exec(
            sys.executable, "-I", "-S", "-c", _CHILD_SHIM, str(self.nice),
            "" if group is None else str(group), *self.args,
            stdin=slave, stdout=slave, stderr=slave, env=self.env, cwd=self.cwd,
            start_new_session=True)

    async def _fresh_on_new_terminal(self) -> asyncio.subprocess.Process:
        """A fresh game on a new PTY of the size of the one it replaces (closed: a game the
        fork server forks on it late gets a hang-up)."""
        master, slave = os.openpty()
        try:
            os.set_blocking(master, False)
            set_winsize(master, *get_winsize(self._master))
            proc = await self._fresh(slave)
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        old, self._master = self._master, master
        os.close(old)
        return proc

    def stop(self, end: SessionEnd) -> None:
        """End the session from outside (server shutdown, the player connected again); the
        game gets a hang-up, also when it is only starting."""
        if self._stop is None:
            if self._stop_early is None:
                self._stop_early = end
        elif not self._stop.done():
            self._stop.set_result(end)

    @property
    def duration(self) -> float:
        return time.monotonic() - self.started_at

    # ------------------------------------------------------------------ ending
    async def _finish(self, pump_out: asyncio.Task[None],
                      pump_in: asyncio.Task[None]) -> SessionEnd:
        assert self._proc is not None and self._stop is not None
        if self._proc.returncode is not None:  # the game ended by itself
            rc = self._proc.returncode
            await self._reap_group(grace=1.0)
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(pump_out, 1.0)  # the app's last output
            if rc == 0:
                return SessionEnd("quit", 0)
            signum = -rc if rc < 0 else _signal_status(rc)
            if signum:  # killed, or ended by SIGTERM/SIGHUP after saving (status 128 + N)
                name = _signal_name(signum)
                await self._write(TERMINAL_RESET + (
                    f"\r\nThe game stopped unexpectedly ({name}). Your game was saved after "
                    f"your last move: connect again to continue.\r\n").encode())
                return SessionEnd("killed", 1, name)
            await self._write(TERMINAL_RESET + (
                f"\r\nThe game ended with an error (status {rc}).\r\n").encode())
            return SessionEnd("exit", rc, f"status {rc}")
        if self._stop.done():
            end = self._stop.result()
        elif pump_in.done():
            end = SessionEnd("disconnect", 1)
        else:
            minutes = (self.idle_timeout or 0) / 60
            end = SessionEnd("idle", 1, f"{minutes:g} min")
        self.hanging_up = True
        await self._terminate()
        pump_out.cancel()
        if end.reason != "disconnect":
            await self._write(TERMINAL_RESET + b"\r\n" + _end_message(end, self.idle_timeout))
        return end

    async def _terminate(self) -> None:
        """Hang up the game's process group: SIGHUP, grace, SIGTERM, SIGKILL."""
        proc = self._proc
        if proc is None:
            return
        self.hanging_up = True
        for sig, wait in ((signal.SIGHUP, self.hangup_grace), (signal.SIGTERM, 1.0)):
            if proc.returncode is not None:
                break
            _killpg(proc.pid, sig)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(proc.wait(), wait)
        if proc.returncode is None:
            _killpg(proc.pid, signal.SIGKILL)
            await proc.wait()
        await self._reap_group(grace=0.5)

    async def _reap_group(self, grace: float) -> None:
        """Give the rest of the game's process group (the computer players' worker) ``grace``
        seconds to leave, then kill what remains."""
        assert self._proc is not None
        pgid = self._proc.pid
        deadline = time.monotonic() + grace
        while _group_alive(pgid) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        if _group_alive(pgid):
            _killpg(pgid, signal.SIGKILL)

    # ------------------------------------------------------------------ copying
    async def _pump_output(self) -> None:
        """PTY -> channel, until the PTY is closed by every process of the game."""
        loop = asyncio.get_running_loop()
        process = self.process
        with contextlib.suppress(Exception):  # drain() waits while more than this is queued
            process.channel.set_write_buffer_limits(high=OUTPUT_BUFFER)
        while True:
            try:
                data = os.read(self._master, _READ_SIZE)
            except BlockingIOError:
                await _wait_fd(loop, self._master, write=False)
                continue
            except OSError as err:  # EIO: the game and its children have all closed it
                if err.errno != errno.EIO:
                    log.debug("reading the game's terminal: %s", err)
                return
            if not data:
                return
            if len(data) >= PTY_CHUNK:
                data = await _gather_output(loop, self._master, data)
            if self._key_at is not None:
                if self.on_key_latency is not None:
                    self.on_key_latency(time.monotonic() - self._key_at)
                self._key_at = None
            try:
                process.stdout.write(data)
                await process.stdout.drain()  # SSH flow control: wait while the client lags
            except (OSError, EOFError):  # the client is gone
                return
            except Exception as err:  # asyncssh raises its own errors for a closed channel
                log.debug("writing to the client: %r", err)
                return

    async def _pump_input(self) -> None:
        """Channel -> PTY, and window changes; returns when the client is gone."""
        import asyncssh

        process = self.process
        while True:
            try:
                data = await process.stdin.read(_READ_SIZE)
            except asyncssh.TerminalSizeChanged as change:
                self.resize(change.width, change.height, change.pixwidth, change.pixheight)
                self._last_input = time.monotonic()
                continue
            except (asyncssh.BreakReceived, asyncssh.SignalReceived):
                continue
            except (OSError, asyncssh.Error, EOFError):
                return
            if not data:
                return
            self._last_input = time.monotonic()
            wait = self._budget.take(len(data))
            if wait > 0:  # a flood of keys: slowed down (the rest waits at the client)
                self._note_throttled()
                await asyncio.sleep(wait)
            self.input_bytes += len(data)
            if self._key_at is None:
                self._key_at = time.monotonic()
            if not await self._write_pty(data):
                # The game closed its terminal: it is ending; keep reading (and dropping)
                # input so a disconnect is still noticed.
                continue

    def resize(self, cols: int, rows: int, xpixels: int = 0, ypixels: int = 0) -> None:
        """The client's window changed: pass it on (clamped; at most
        :data:`RESIZES_PER_SECOND` a second, the latest of a burst last)."""
        self.note_size(cols, rows)
        self._size_wanted = (cols, rows, xpixels, ypixels)
        if self._resizer is not None and not self._resizer.done():
            return  # the size is applied when the next change may go
        wait = self._resized_at + 1 / RESIZES_PER_SECOND - time.monotonic()
        if wait <= 0:
            self._apply_size()
            return
        self._resizer = asyncio.get_running_loop().create_task(self._resize_later(wait))

    async def _resize_later(self, wait: float) -> None:
        await asyncio.sleep(wait)
        self._apply_size()

    def _apply_size(self) -> None:
        wanted, self._size_wanted = self._size_wanted, None
        if wanted is None or self._master < 0:
            return
        self._resized_at = time.monotonic()
        with contextlib.suppress(OSError):
            set_winsize(self._master, *wanted)

    def note_size(self, cols: int, rows: int) -> None:
        """Log (once a session) a terminal size larger than a session gets."""
        if clamp_size(cols, rows) != (max(1, cols or 80), max(1, rows or 24)) \
                and not self._clamp_told:
            self._clamp_told = True
            log.info("player %s asked for a terminal of %dx%d: clamped to %dx%d (at most "
                     "%dx%d)", self.player, cols, rows, *clamp_size(cols, rows),
                     MAX_COLUMNS, MAX_ROWS)

    def _note_throttled(self) -> None:
        now = time.monotonic()
        if now - self._throttled_at >= 60:
            self._throttled_at = now
            log.warning("player %s sends input faster than %d bytes a second: slowed down",
                        self.player, INPUT_RATE)

    async def _write_pty(self, data: bytes) -> bool:
        loop = asyncio.get_running_loop()
        view = memoryview(data)
        while view:
            try:
                n = os.write(self._master, view)
            except BlockingIOError:
                await _wait_fd(loop, self._master, write=True)
                continue
            except OSError:
                return False
            view = view[n:]
        return True

    async def _idle_watch(self, timeout: float) -> None:
        while True:
            left = self._last_input + timeout - time.monotonic()
            if left <= 0:
                return
            await asyncio.sleep(left)

    async def _write(self, data: bytes) -> None:
        with contextlib.suppress(Exception):
            self.process.stdout.write(data)
            await asyncio.wait_for(self.process.stdout.drain(), 2.0)


# what a session's player is told when their new connection (on this host or another) takes over
REPLACED = ("You connected again from somewhere else: this session is closed, and your game "
            "goes on in the new one.")


def _end_message(end: SessionEnd, idle_timeout: float | None) -> bytes:
    if end.reason == "idle":
        minutes = (idle_timeout or 0) / 60
        text = (f"Disconnected after {minutes:g} minute{'s' if minutes != 1 else ''} without "
                f"a key press. Your game is saved: connect again to continue.")
    elif end.reason == "shutdown":
        text = "The server is shutting down. Your game is saved: connect again later."
    elif end.reason == "browser":
        text = "Your game continues in the browser. Connect again to take it back here."
    elif end.reason == "replaced":
        text = REPLACED
    else:
        text = end.detail or "The session ended."
    return text.encode() + b"\r\n"


async def _gather_output(loop: asyncio.AbstractEventLoop, fd: int, data: bytes) -> bytes:
    """``data``, a full PTY chunk read from the game's terminal, with what follows it, up to
    :data:`_READ_SIZE` bytes: read while the game is still writing (each read that fills a
    chunk waits :data:`GATHER_WAIT` at most for the next), so that a frame goes to the client
    in one SSH packet instead of one per 4 KiB.

    A PTY passes a game's output 4,095 bytes at a read, so the title (about 10 KB at 100x30)
    came in three reads or more, and the server sent each as an SSH packet of its own (with
    an empty SSH_MSG_IGNORE before each, which asyncssh sends before every packet), each
    encrypted, sent, received and decrypted apart. A short output (a key's redraw) is one
    read, below a chunk, and goes at once as before."""
    parts = [data]
    size = last = len(data)
    while size < _READ_SIZE:
        try:
            more = os.read(fd, _READ_SIZE - size)
        except BlockingIOError:
            # only a read of whole chunks was cut short (from a pipe, which gathers writes
            # together, one of a chunk and a half is not: it ended in a shorter write)
            full = last > 0 and last % PTY_CHUNK == 0
            if not full or not await _readable_within(loop, fd, GATHER_WAIT):
                break
            last = 0  # (one wait for each full chunk)
            continue
        except OSError:  # EIO: the game has closed it; the next read says so
            break
        if not more:
            break
        parts.append(more)
        size += len(more)
        last = len(more)
    return b"".join(parts) if len(parts) > 1 else data


async def _readable_within(loop: asyncio.AbstractEventLoop, fd: int, timeout: float) -> bool:
    """Whether ``fd`` becomes readable within ``timeout`` seconds."""
    fut: asyncio.Future[bool] = loop.create_future()

    def done(readable: bool) -> None:
        if not fut.done():
            fut.set_result(readable)

    loop.add_reader(fd, done, True)
    timer = loop.call_later(timeout, done, False)
    try:
        return await fut
    finally:
        timer.cancel()
        loop.remove_reader(fd)


async def _wait_fd(loop: asyncio.AbstractEventLoop, fd: int, *, write: bool) -> None:
    fut: asyncio.Future[None] = loop.create_future()

    def ready() -> None:
        if not fut.done():
            fut.set_result(None)

    add, remove = ((loop.add_writer, loop.remove_writer) if write
                   else (loop.add_reader, loop.remove_reader))
    add(fd, ready)
    try:
        await fut
    finally:
        remove(fd)


def _killpg(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _signal_status(status: int) -> int | None:
    """N when ``status`` is 128 + N for a signal N (how the game exits after SIGTERM or
    SIGHUP), else None."""
    if status <= 128:
        return None
    try:
        return int(signal.Signals(status - 128))
    except ValueError:
        return None


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


__all__ = [
    "MAX_COLUMNS",
    "MAX_ROWS",
    "NOTICE_ENV",
    "PLAYERS_ENV",
    "TERMINAL_RESET",
    "InputBudget",
    "PtyGame",
    "SessionEnd",
    "child_environment",
    "clamp_size",
    "client_wants_ascii",
    "get_winsize",
    "set_winsize",
    "valid_term",
]
