"""Warm sessions: a fork server that has imported the game once, and forks a process per session.

Starting a fresh Python for every SSH session costs about 0.35 CPU-seconds before the title
screen (mostly imports of Textual and Rich), which a crowd of logins pays all at once. Instead
the server starts one **fork server** (``python -m casino_tui _fork-server FD``): it imports the
app, the engine and Textual, draws the title once in a headless app so that the stylesheets are
parsed and the lazily imported widgets are loaded, freezes what it holds (``gc.freeze()``: the
collector of a child then never writes to those pages, so they stay shared), and waits.

For each session the server sends it a request over a Unix socket pair (``SOCK_SEQPACKET``):
the game's arguments, its environment and working directory as JSON, and the slave end of the
session's PTY as ``SCM_RIGHTS``. The fork server forks; the child starts a new session
(``setsid``), puts the PTY on fds 0, 1 and 2 and makes it its controlling terminal
(``TIOCSCTTY``), closes every other descriptor (the control socket included), takes the
request's environment in place of its own (built afresh by the server, exactly as for a fresh
process: nothing of the server's or of another player's), changes to its directory and runs
the game's normal ``main()`` with the session's arguments. When ``main()`` returns it ends as a
fresh process would (its threads joined, its ``atexit`` handlers run, its standard streams
flushed), then with ``os._exit``: the interpreter's teardown, which would free every object the
child shares with the fork server, is skipped (:func:`_leave`).
The fork server answers with the child's pid, reaps it when it ends and reports its exit
status on the same socket. The server signals the session's process group, forwards resizes
and reads its output as for a fresh process (:mod:`casino_tui.serve.pty_session`).

A session's game runs at a lower CPU priority than the server and the computer players' pool
(:func:`lower_priority`, ``--session-nice``): with 200 games drawing at once the server's own
work (logins, relaying every key and screen, the tables) and the pool come first, so none of it
waits behind the games it serves. A game forked for a login goes down only once its first
frame is on its terminal (:func:`lower_after_first_frame`): its title does not wait behind
the games being played either.

The fork server offers its memory, and so every game's, to the kernel's same-page merging
(:func:`merge_pages`): a game copies the pages of what it uses (Python writes reference counts),
and where the host runs KSM the copies that hold the same bytes again are shared again.

The random module reseeds itself in a forked child; ``secrets`` reads the kernel. The string
hash seed is the fork server's (Python fixes it at start), random per fork server.

If the fork server dies it is started again; a session that cannot be forked (the fork server
is starting, or gone) starts as a fresh process, with a line in the log.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import fcntl
import gc
import json
import logging
import os
import random
import selectors
import signal
import socket
import sys
import termios
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from ..procs import autogroup_nice, lower_group_priority, lower_priority, set_autogroup_nice
from . import hotcode

log = logging.getLogger("casino_tui.serve")

# The game's command line starts the fork server with this first argument (casino_tui.__main__):
# the fork server runs the game's own main() in each child, and only the top layer may import it.
FORK_SERVER_COMMAND = "_fork-server"
MAX_MESSAGE = 1 << 16  # bytes of one request or answer
START_TIMEOUT = 60.0  # seconds for a fork server to import and warm up before it is given up
# Seconds for one fork to be answered. The fork server forks in the order asked, each in a few
# milliseconds of its own CPU: a crowd logging in at once on a busy machine (200 at once, the
# games of the first ones drawing their titles) waited over 10 s for some of them. Past this
# the fork server is taken as hung, and the game starts as a fresh process.
SPAWN_TIMEOUT = 60.0
# The fork server's Python runs without docstrings (and asserts), as every game forked from it:
# a game copies each page of the fork server's whose objects it uses (Python writes their
# reference counts), docstrings and all, and the docstrings sit among the code, names and
# constants it uses. Without them a game copied 0.6 MiB less (docs/SERVE.md, "A game's memory,
# split"). The game reads no docstring; a fresh process (no fork server) keeps them.
FORK_SERVER_FLAGS = ("-OO",)
RESTART_PAUSE = 5.0  # seconds between two starts of a fork server that keeps dying
MAX_RESTART_PAUSE = 300.0  # ... doubled after each start that fails, up to this
# The fork server's own environment: what every session's environment has that is not the
# player's (Python's UTF-8 mode and the C.UTF-8 locale are fixed at start, so they must be the
# same as a session's), and nothing else.
SERVER_ENV_KEEP = ("PATH", "PYTHONPATH", "TMPDIR")
_FORK_SERVER_ENV = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONUTF8": "1"}
# prctl(2): let the kernel's same-page merging (KSM) scan this process's memory, and its forks'
_PR_SET_MEMORY_MERGE = 67
KSM_RUN = Path("/sys/kernel/mm/ksm/run")  # "1" while the kernel merges pages


class ForkServerError(Exception):
    """A session could not be forked (the fork server is not running, or failed the fork).

    ``sent``: the request had reached the fork server, which did not answer in time; it may
    still fork a game on the terminal it was given (that game is killed when its late answer
    comes), so a fresh game must not use that terminal."""

    def __init__(self, message: str, *, sent: bool = False) -> None:
        super().__init__(message)
        self.sent = sent


def fork_server_environment(server_env: Mapping[str, str] | None = None) -> dict[str, str]:
    server_env = os.environ if server_env is None else server_env
    env = {k: server_env[k] for k in SERVER_ENV_KEEP if k in server_env}
    env.update(_FORK_SERVER_ENV)
    return env


# ====================================================================== the server's side
class ForkedGame:
    """A session's process forked by the fork server: what :class:`PtyGame` uses of an
    ``asyncio.subprocess.Process`` (``pid``, ``returncode``, ``wait()``)."""

    def __init__(self, pid: int, exit_future: asyncio.Future[int]) -> None:
        self.pid = pid
        self._exit = exit_future

    @property
    def returncode(self) -> int | None:
        return self._exit.result() if self._exit.done() else None

    async def wait(self) -> int:
        return await asyncio.shield(self._exit)


class ForkServer:
    """The server's handle on its fork server: :meth:`start`, :meth:`spawn`, :meth:`close`.

    The fork server is restarted when it dies (at most every :data:`RESTART_PAUSE` seconds,
    longer after starts that failed);
    the sessions it had forked run on, and their end is then noticed by polling their pid
    (their exit status is lost with the fork server: it is reported as 0)."""

    def __init__(self, main_module: str = "casino_tui", warm: bool = True) -> None:
        self.main_module = main_module
        self.warm = warm
        self.pid: int | None = None
        self.starts = 0
        self.late_forks = 0  # games forked after their session had given up waiting (ended)
        self._proc: asyncio.subprocess.Process | None = None
        self._sock: socket.socket | None = None
        self._ready = asyncio.Event()
        self._closing = False
        self._ids = 0
        self._pending: dict[int, asyncio.Future[ForkedGame]] = {}
        self._exits: dict[int, asyncio.Future[int]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._starter: asyncio.Task[None] | None = None
        self._last_start = -MAX_RESTART_PAUSE
        self._failed_starts = 0  # in a row
        self._tried = asyncio.Event()  # a start has succeeded or failed
        self._send_lock = asyncio.Lock()
        self._watchers: set[asyncio.Task[None]] = set()

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    async def wait_ready(self, timeout: float = START_TIMEOUT) -> bool:
        """Wait (at most ``timeout`` seconds) until the fork server is ready or a start has
        failed; whether it is ready."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._tried.wait(), timeout)
        return self.ready

    def start(self) -> None:
        """Start the fork server in the background (:attr:`ready` once it can fork)."""
        if self._closing or (self._starter is not None and not self._starter.done()):
            return
        self._starter = asyncio.get_running_loop().create_task(self._start())

    async def _start(self) -> None:
        wait = min(RESTART_PAUSE * 2 ** self._failed_starts, MAX_RESTART_PAUSE)
        pause = self._last_start + wait - time.monotonic()
        if pause > 0:
            await asyncio.sleep(pause)
        if self._closing:
            return
        self._last_start = time.monotonic()
        began = time.monotonic()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            argv = [sys.executable, *FORK_SERVER_FLAGS, "-m", self.main_module,
                    FORK_SERVER_COMMAND, str(theirs.fileno())]
            if not self.warm:
                argv.append("--cold")
            proc = await asyncio.create_subprocess_exec(
                *argv, pass_fds=(theirs.fileno(),), env=fork_server_environment(),
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                cwd="/")
        except OSError as err:
            ours.close()
            log.warning("the fork server could not be started (sessions start as fresh "
                        "processes): %s", err)
            self._failed_starts += 1
            self._tried.set()
            return
        finally:
            theirs.close()
        ours.setblocking(False)
        loop = asyncio.get_running_loop()
        try:
            hello = await asyncio.wait_for(loop.sock_recv(ours, MAX_MESSAGE), START_TIMEOUT)
        except (TimeoutError, OSError):
            hello = b""
        if not hello or json.loads(hello).get("ready") is not True:
            ours.close()
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            status = await proc.wait()
            self._failed_starts += 1
            self._tried.set()
            wait = min(RESTART_PAUSE * 2 ** self._failed_starts, MAX_RESTART_PAUSE)
            log.warning("the fork server did not start (status %s): sessions start as fresh "
                        "processes; trying again in %gs", status, wait)
            if not self._closing:
                self.start()
            return
        self._proc, self._sock, self.pid = proc, ours, proc.pid
        self.starts += 1
        if self.starts == 1:
            _log_merging(bool(json.loads(hello).get("merge")))
        self._failed_starts = 0
        self._reader = loop.create_task(self._read(ours, proc))
        self._ready.set()
        self._tried.set()
        log.info("fork server pid %d ready in %.2fs%s", proc.pid, time.monotonic() - began,
                 "" if self.starts == 1 else f" (started again: {self.starts} starts)")

    async def spawn(self, slave: int, args: Sequence[str], env: Mapping[str, str],
                    cwd: Path, nice: int = 0, title_within: float | None = None) -> ForkedGame:
        """Fork a session's game on the PTY ``slave``, ``nice`` steps below the server's
        priority: at once, or with ``title_within`` (seconds) once its first frame is on its
        terminal, and at the latest after that long (:func:`lower_after_first_frame`)
        (:class:`ForkServerError` if it cannot be done now: then start a fresh process)."""
        sock = self._sock
        if not self.ready or sock is None:
            raise ForkServerError("the fork server is not running")
        self._ids += 1
        number = self._ids
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[ForkedGame] = loop.create_future()
        self._pending[number] = answer
        message = json.dumps({"id": number, "args": list(args), "env": dict(env),
                              "cwd": str(cwd), "nice": nice,
                              "title_within": title_within}).encode()
        sent = False
        try:
            if len(message) > MAX_MESSAGE:
                raise ForkServerError("the session's request is too long")
            async with self._send_lock:
                await _send_fd(loop, sock, message, slave)
            sent = True
            return await asyncio.wait_for(asyncio.shield(answer), SPAWN_TIMEOUT)
        except TimeoutError as err:
            raise ForkServerError(f"the fork server did not answer within {SPAWN_TIMEOUT:g}s",
                                  sent=sent) from err
        except OSError as err:
            raise ForkServerError(f"the fork server did not answer: {err!r}",
                                  sent=sent) from err
        finally:
            self._pending.pop(number, None)

    async def _read(self, sock: socket.socket, proc: asyncio.subprocess.Process) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                data = await loop.sock_recv(sock, MAX_MESSAGE)
            except OSError:
                data = b""
            if not data:
                break
            try:
                message = json.loads(data)
            except ValueError:
                log.warning("the fork server said something unreadable: %r", data[:80])
                continue
            if "id" in message:
                answer = self._pending.get(message["id"])
                if "pid" in message:
                    pid = int(message["pid"])
                    exit_future: asyncio.Future[int] = loop.create_future()
                    self._exits[pid] = exit_future
                    if answer is None or answer.done():  # given up on: a game nobody plays
                        _kill_group(pid)  # its group, once the child has called setsid
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(pid, signal.SIGKILL)  # and the child, if not yet
                        self.late_forks += 1
                        log.warning("the fork server forked a game (pid %d) after the session "
                                    "had given up waiting for it: ended", pid)
                    else:
                        answer.set_result(ForkedGame(pid, exit_future))
                elif answer is not None and not answer.done():
                    answer.set_exception(ForkServerError(str(message.get("error"))))
            elif "exited" in message:
                done = self._exits.pop(int(message["exited"]), None)
                if done is not None and not done.done():
                    done.set_result(int(message["status"]))
        # The fork server is gone: ended by close(), or it died.
        self._ready.clear()
        self._sock = None
        sock.close()
        status = await proc.wait()
        for answer in self._pending.values():
            if not answer.done():
                answer.set_exception(ForkServerError("the fork server ended"))
        orphans, self._exits = self._exits, {}
        for pid, done in orphans.items():
            watch = loop.create_task(_watch_orphan(pid, done))
            self._watchers.add(watch)
            watch.add_done_callback(self._watchers.discard)
        if not self._closing:
            log.warning("the fork server (pid %d) ended with status %d; %d of its sessions "
                        "play on; starting it again", proc.pid, status, len(orphans))
            self.start()

    async def close(self) -> None:
        """End the fork server (its sessions are ended by the server, not here)."""
        self._closing = True
        if self._starter is not None and not self._starter.done():
            self._starter.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._starter
        sock, proc = self._sock, self._proc
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        if proc is not None and proc.returncode is None:
            try:
                await asyncio.wait_for(proc.wait(), 5.0)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(self._reader, 5.0)


def _log_merging(offered: bool, run: Path = KSM_RUN) -> None:
    """Say once whether the games' memory is merged by the kernel (docs/SERVE.md, "Warm
    sessions")."""
    on = merging_on(run)
    if offered and on:
        log.info("games' memory: the kernel's same-page merging (KSM) is on, and the games "
                 "use it")
    elif offered and on is False:
        log.info("games' memory: the kernel's same-page merging (KSM) is off; with it on a "
                 "game's own memory is about halved (as root: echo 1 > %s; docs/SERVE.md)",
                 run)


async def _send_fd(loop: asyncio.AbstractEventLoop, sock: socket.socket, message: bytes,
                   fd: int) -> None:
    while True:
        try:
            socket.send_fds(sock, [message], [fd])
            return
        except BlockingIOError:
            await _writable(loop, sock)


async def _writable(loop: asyncio.AbstractEventLoop, sock: socket.socket) -> None:
    ready: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_writer(sock.fileno(), wake)
    try:
        await ready
    finally:
        loop.remove_writer(sock.fileno())


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie no longer counts)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


async def _watch_orphan(pid: int, done: asyncio.Future[int]) -> None:
    """A session whose fork server died: its end is seen by its pid going away."""
    while _alive(pid):
        await asyncio.sleep(0.25)
    if not done.done():
        done.set_result(0)


# ====================================================================== the fork server
def serve_forks(argv: Sequence[str], main: Callable[[Sequence[str]], int]) -> int:
    """The fork server's process (``python -m casino_tui _fork-server FD [--cold]``): returns
    its own exit status; a forked child ends in :func:`_leave` with the session's game's status
    (``main(args)``); an exception out of ``main`` (``SystemExit`` too) propagates, and the child
    then exits as a fresh process would."""
    if not argv or not argv[0].isdigit():
        print("casino-tui: _fork-server is started by casino-tui serve, not by hand",
              file=sys.stderr)
        return 2
    sock = socket.socket(fileno=int(argv[0]))
    # Ctrl+C at the server's terminal reaches its process group, which this process is in: the
    # server hangs up its games and then closes this socket, which ends the fork server.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    merging = _prepare(warm="--cold" not in argv[1:])
    request = _Loop(sock, merging).run()
    if request is None:
        return 0
    return _child(request, main)


def _prepare(warm: bool) -> bool:
    """Import what a game imports and, when ``warm``, draw its title once headless, so that a
    child starts with the stylesheets parsed and the widgets loaded; then freeze it all and
    offer it to the kernel's same-page merging (whether that was done: :func:`merge_pages`)."""
    import casino_tui.app.app  # noqa: F401  (Textual, Rich, the engine, the screens)
    if warm:
        _import_game_modules()
        try:
            _warm_up()
        except Exception as err:  # a cold start still works: only slower
            print(f"casino-tui fork server: warming up failed: {err!r}", file=sys.stderr)
        _pack_code()
    if threading.active_count() > 1:  # a fork copies only the calling thread
        print("casino-tui fork server: threads still running after the warm-up: "
              f"{threading.enumerate()}", file=sys.stderr)
    # a game's texts' widths are its own (casino_tui.app.cellcache)
    from casino_tui.app.cellcache import forget_cell_lengths

    forget_cell_lengths()
    gc.collect()
    gc.freeze()
    return merge_pages()


# What a game imports after its title (its screens and widgets, the computer players' worker and
# multiprocessing, the table controller...): imported once here, each child shares them.
_GAME_PACKAGES = ("casino_tui.app", "casino_tui.ai", "casino_tui.table", "casino_tui.saves",
                  "casino_tui.stats")
_GAME_MODULES = ("multiprocessing.spawn", "multiprocessing.synchronize",
                 "multiprocessing.queues", "concurrent.futures.process", "ctypes",
                 # Textual imports it when a widget first needs a scroll bar: the title at
                 # 100x30 does, the warm-up's at 80x24 does not
                 "textual.scrollbar")


def _import_game_modules() -> None:
    import importlib
    import pkgutil

    names = list(_GAME_MODULES)
    for package in _GAME_PACKAGES:
        module = importlib.import_module(package)
        names += [info.name for info in pkgutil.walk_packages(module.__path__, package + ".")
                  if "bench" not in info.name and not info.name.endswith(".command")]
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as err:  # only slower: the child imports it when it needs it
            print(f"casino-tui fork server: importing {name} failed: {err!r}", file=sys.stderr)


def _warm_up() -> None:
    """The title screen once, with a notification, in a headless app with a throwaway data
    directory and the computer deciding in the app's process (no worker, no thread); then
    every other screen's CSS parsed with that app's theme, the New game screen and a new
    game's table (``n``, Enter: what every player does first), and a round's summary shown
    over that table.

    So every screen's CSS is parsed here, once, and not by every game as it shows them (each
    screen's file was parsed again at its first push, and the whole stylesheet rebuilt from
    the others'), and what Textual makes lazily the first time such a screen is styled and
    drawn is made here too."""
    import tempfile

    from casino_tui.app.app import CasinoApp
    from casino_tui.app.players import InProcessChooser
    from casino_tui.app.screens.summary import warm_up_summary
    from casino_tui.app.sharedcss import parse_ahead
    from casino_tui.app.styles import screen_css_files
    from casino_tui.saves import open_store

    saved = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="casino-tui-warm-") as tmp:
        os.environ.update({"HOME": tmp, "CASINO_TUI_DATA_DIR": f"{tmp}/data",
                           "CASINO_TUI_CONFIG_DIR": f"{tmp}/config"})
        try:
            async def draw() -> None:
                app = CasinoApp(store=open_store(None), chooser_factory=InProcessChooser)
                # with the tooltip and the notifications' rack a game's screen has (a test's
                # app has neither), and a notification, so that their CSS is parsed here too
                async with app.run_test(size=(80, 24), tooltips=True,
                                        notifications=True) as pilot:
                    app.notify("warm")
                    await pilot.pause()
                    # every screen's CSS, parsed here once (not in each game as it first
                    # shows that screen)
                    parse_ahead(screen_css_files(), app.get_css_variables())
                    await pilot.press("n")  # the New game screen
                    await pilot.pause()
                    await pilot.press("enter")  # the table
                    await pilot.pause()
                    await pilot.pause()
                    # a round's summary shown once over the table (its widgets' CSS, its
                    # code, the table's styles dimmed under it: casino_tui/app/tint.py),
                    # which every game shows at its round's end, all of a crowd's at once
                    await app.push_screen(warm_up_summary())
                    await pilot.pause()
                    app.pop_screen()
                    await pilot.pause()

            asyncio.run(draw())
        finally:
            os.environ.clear()
            os.environ.update(saved)


def _pack_code() -> None:
    """The code a game runs, packed together so that a game copies fewer of the fork server's
    pages (:mod:`casino_tui.serve.hotcode`; a short headless game in a child finds it, once
    for an installation)."""
    try:
        # what a game at a table runs besides after the rest (in one pass: its names and lists
        # made and freed once), so that a solo game's packed code stays as dense as it was
        hotcode.pack(hotcode.used_by_a_game_cached() | hotcode.served_only_code(),
                     then=hotcode.used_by_a_game_cached(play=hotcode.play_a_table_game))
    except Exception as err:  # only more memory a game: the games still start
        print(f"casino-tui fork server: packing the games' code failed: {err!r}",
              file=sys.stderr)


def merge_pages() -> bool:
    """Offer this process's memory, and so every game forked from it (the setting is
    inherited on fork), to the kernel's same-page merging (KSM: Linux 6.4 or later), which
    shares pages again that hold the same bytes, when the host runs it (:func:`merging_on`).
    Python writes an object's reference count each time it uses it, so a game copies the
    pages of everything it touches; at rest, many of those copies hold the fork server's bytes
    again, or another game's. Costs nothing where KSM is off. Whether it was done."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_MEMORY_MERGE, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def merging_on(run: Path = KSM_RUN) -> bool | None:
    """Whether the host's kernel merges same pages now (None: it has no KSM)."""
    try:
        return run.read_text().strip() == "1"
    except OSError:
        return None


class _Request:
    def __init__(self, fd: int, args: list[str], env: dict[str, str], cwd: str,
                 nice: int = 0, title_within: float | None = None) -> None:
        self.fd, self.args, self.env, self.cwd, self.nice = fd, args, env, cwd, nice
        self.title_within = title_within


class _Loop:
    """Requests in, children out: forks on each request, reports each child's end."""

    def __init__(self, sock: socket.socket, merging: bool) -> None:
        self.sock = sock
        self.merging = merging  # told to the server in the hello (ForkServer._start)
        self.children: set[int] = set()
        self.wake_r, self.wake_w = os.pipe()
        for fd in (self.wake_r, self.wake_w):
            os.set_blocking(fd, False)
        self.selector = selectors.DefaultSelector()

    def run(self) -> _Request | None:
        """Serve until the server closes the socket (None), or, in a child, its request."""
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(self.wake_w, warn_on_full_buffer=False)
        self.selector.register(self.sock, selectors.EVENT_READ)
        self.selector.register(self.wake_r, selectors.EVENT_READ)
        self._send({"ready": True, "merge": self.merging})
        try:
            while True:
                for key, _ in self.selector.select():
                    if key.fileobj is self.sock:
                        request = self._request()
                        if request is False:
                            return None
                        if isinstance(request, _Request):
                            return request  # in the child
                    else:
                        with contextlib.suppress(OSError):
                            os.read(self.wake_r, 4096)
                self._reap()
        finally:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            self.selector.close()
            os.close(self.wake_r)
            os.close(self.wake_w)
            self.sock.close()

    def _send(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(OSError):  # the server is gone: the next read says so
            self.sock.send(json.dumps(message).encode())

    def _request(self) -> _Request | bool | None:
        """False: the server closed the socket; a request in the child; None in the fork
        server."""
        try:
            data, fds, _flags, _addr = socket.recv_fds(self.sock, MAX_MESSAGE, 1)
        except InterruptedError:
            return None
        except OSError:
            return False
        if not data:
            return False
        try:
            message = json.loads(data)
            number = int(message["id"])
        except (ValueError, KeyError, TypeError):
            for fd in fds:
                os.close(fd)
            return None
        if len(fds) != 1:
            for fd in fds:
                os.close(fd)
            self._send({"id": number, "error": "no terminal was passed"})
            return None
        try:
            within = message.get("title_within")
            request = _Request(fds[0], [str(a) for a in message["args"]],
                               {str(k): str(v) for k, v in message["env"].items()},
                               str(message["cwd"]), int(message.get("nice", 0)),
                               None if within is None else float(within))
            pid = os.fork()
        except Exception as err:
            os.close(fds[0])
            self._send({"id": number, "error": f"{type(err).__name__}: {err}"})
            return None
        if pid == 0:
            return request
        os.close(fds[0])
        self.children.add(pid)
        self._send({"id": number, "pid": pid})
        return None

    def _reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                self.children.clear()
                return
            if pid == 0:
                return
            self.children.discard(pid)
            self._send({"exited": pid, "status": os.waitstatus_to_exitcode(status)})


def _child(request: _Request, main: Callable[[Sequence[str]], int]) -> int:
    """In the forked child: become the session's game (a new session on its PTY, its own
    environment and directory, no other descriptor), then run it."""
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        group_nice = autogroup_nice()
        os.setsid()
        if request.title_within is None:
            lower_priority(request.nice, group_nice)
        else:
            lower_after_first_frame(request.nice, group_nice, request.title_within)
        for fd in (0, 1, 2):
            os.dup2(request.fd, fd)
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
        os.closerange(3, _max_fd())
        os.chdir(request.cwd)
        os.environ.clear()
        os.environ.update(request.env)
        _open_stdio()
        sys.argv = [sys.argv[0], *request.args]
    except BaseException as err:
        with contextlib.suppress(OSError):
            os.write(2, f"casino-tui: the game could not start: {err!r}\r\n".encode())
        os._exit(1)
    collect_after_first_frame(request.title_within or FIRST_FRAME_LIMIT)
    no_collection_once_quitting()
    status = main(request.args)
    _leave(status)


# Seconds a forked game tries again to set its autogroup's value when the kernel refuses it for
# now (an unprivileged server: at most one such write every 0.1 s on the host).
AUTOGROUP_RETRY_FOR = 60.0


def lower_after_first_frame(steps: int, group_nice: int | None, within: float) -> None:
    """In a forked game: run at the server's priority until the game's first frame is on its
    terminal, then ``steps`` nice values below it (the game's every thread and process, and its
    scheduler autogroup: :func:`casino_tui.procs.lower_group_priority`); at the latest after
    ``within`` seconds, for a game that never shows a frame (plain mode, or one that cannot).

    Games run below the server (``--session-nice``) so that the server's own work comes first;
    but a login's game runs below every game being played too, and on a busy host its title
    waited behind them all. The title is what a login waits for, and it costs the game about
    50 ms of CPU: so a login draws it at the server's priority (its new autogroup at the
    server's group's value, not above it), and only then takes the place of a game at play.
    An unprivileged process can only lower its priority: hence a login that starts high and
    goes down, never the other way. The first frame is told by the app
    (:mod:`casino_tui.app.firstframe`), from Textual's output thread once the frame is written;
    the time limit is a daemon thread's timer, so that a game that is busy elsewhere is
    lowered too. Under a server that is not root the kernel refuses most of a crowd's
    autogroup writes for now (one every 0.1 s on the host): they are tried again
    (:func:`casino_tui.procs.set_autogroup_nice`)."""
    if steps <= 0:
        return
    base = os.getpriority(os.PRIO_PROCESS, 0)  # the fork server's: the server's
    if group_nice:  # a new session's group starts at 0: not above the server's
        set_autogroup_nice(group_nice, retry=AUTOGROUP_RETRY_FOR)
    once_after_first_frame(within, lambda: lower_group_priority(
        base, steps, group_nice, retry=AUTOGROUP_RETRY_FOR))


def once_after_first_frame(within: float, action: Callable[[], None]) -> None:
    """In a forked game: ``action`` once, as soon as the game's first frame is on its terminal
    (:mod:`casino_tui.app.firstframe`, from Textual's output thread) or ``within`` seconds
    have passed (a daemon thread's timer: a game that shows no frame, or is busy elsewhere),
    from whichever thread comes first."""
    from casino_tui.app import firstframe

    lock = threading.Lock()
    done = False

    def once() -> None:
        nonlocal done
        with lock:
            if done:
                return
            done = True
        timer.cancel()
        action()

    timer = threading.Timer(within, once)
    timer.daemon = True  # (a game's exit does not wait for it)
    timer.start()
    firstframe.when_written(once)


# The cyclic garbage collector's thresholds in a forked game (Python's are 700, 10, 10): a
# collection of the youngest objects after 300 more allocations than frees of objects it
# tracks, of the middle generation after 5 of those, of everything after 10 of these (and only
# when the objects that would be walked for the first time are over a quarter of those already
# there: Python's own rule). A full collection walks every object the game made and kept (its
# screens, the table), about 10 ms; the young ones are cheap. 300, 5, 3 ran about 9 full
# collections a round, 90 ms of the 100-130 ms a round's collections cost a game (of about
# 1.1 s); 300, 5, 10 runs 2-3 (docs/SERVE.md, "The collector's thresholds, traded again").
SESSION_GC_THRESHOLDS = (300, 5, 10)

# How far a game's youngest threshold strays from :data:`SESSION_GC_THRESHOLDS`' at random,
# either way (a quarter: 225 to 375), so that a crowd's games, which make the same objects at
# the same pace, do not all collect at the same moment (:func:`session_gc_thresholds`).
GC_SPREAD = 0.25


def session_gc_thresholds(rng: random.Random | None = None) -> tuple[int, int, int]:
    """A forked game's own thresholds: :data:`SESSION_GC_THRESHOLDS`, its youngest one drawn
    at random within :data:`GC_SPREAD` of it (the same on average).

    Every collection comes after a count of allocations, so games that play the same script
    at the same pace collect at the same moments: in a crowd of 200 players started together
    (``python -m benchmarks.load --sessions 200 --pace 2``), 168 of a run's 295 full
    collections (about 8 ms of CPU each) came within the same ten seconds, at the same deal,
    and the keys pressed then waited for them (in some runs 100-260 keys over 250 ms). A
    threshold of its own moves each game's collections apart from the others' by a share of
    the allocations between them: at most 41 full collections in any five seconds of such a
    run instead of 112, the same CPU in all (docs/SERVE.md, "A crowd's collections apart")."""
    young, middle, old = SESSION_GC_THRESHOLDS
    draw = (rng or random.Random()).uniform(1 - GC_SPREAD, 1 + GC_SPREAD)
    return round(young * draw), middle, old


def collect_sooner() -> None:
    """In a forked game, collect cyclic garbage more often than Python does by default.

    Drawing a screen leaves cyclic garbage (Textual's widgets, messages, strips and their caches
    refer to each other), which waits for the collector; with Python's thresholds a game three
    moves in held about 10,000 such objects, 1.4 MiB of blocks that new objects could not use,
    so the game took fresh memory for them instead. Sooner collections let the game reuse those
    blocks: three moves into a game, 21.3 MiB of its own memory instead of 22.0 (10 games at
    once, ``python -m benchmarks.forks``). They are
    cheap here and dear in a fresh process: the collector never looks at what the fork server
    froze (:func:`_prepare`), so even a collection of every generation walks only the objects
    the game made itself (about 25,000), where a fresh process would walk all of Textual too.
    The CPU of a key did not change beyond the noise (``python -m benchmarks.keycpu --forked``;
    docs/SERVE.md, "What a game makes of its own"). Each game draws its own thresholds
    (:func:`session_gc_thresholds`)."""
    gc.set_threshold(*session_gc_thresholds())


# Seconds a forked game runs without its cyclic garbage collector when it shows no first frame
# (plain mode, or a game that cannot draw): as long as it keeps its first priority at most.
FIRST_FRAME_LIMIT = 5.0


def collect_after_first_frame(within: float) -> None:
    """In a forked game: no cyclic garbage collection until its first frame is on its terminal
    (or ``within`` seconds have passed, for a game that shows none), then collections as
    :func:`collect_sooner` sets them.

    Building and drawing the title allocates tens of thousands of objects, and at the game's
    thresholds the collector ran about 16 times before the first frame (14 of the youngest
    generation, 2 of the middle one): 1.5-2.6 ms of the 37-60 ms of CPU a forked game spends
    to its title, which is what a crowd of logins waits for. What they leave as garbage is
    collected just after, when the game already runs below the logins still waiting
    (:func:`lower_after_first_frame`). The collector is switched on again from whichever thread
    comes first (Textual's output thread, or a daemon timer), once."""
    gc.disable()

    def start() -> None:
        collect_sooner()
        if not _quitting.is_set():  # (a game quit before its first frame collects no more)
            gc.enable()

    once_after_first_frame(within, start)


_quitting = threading.Event()  # the forked game's app has begun to quit


def no_collection_once_quitting() -> None:
    """In a forked game: no cyclic garbage collection once its app begins to quit
    (:mod:`casino_tui.app.quitting`).

    The child ends with ``os._exit`` (:func:`_leave`), so nothing it made is ever freed by
    the collector: a collection while Textual takes the screens apart and the game ends is
    work for nothing, and at the round's end it came in about one quit in two, often a
    full one (every object the game made, about 10 ms of the 15-25 ms a quit costs the
    game), which 200 players quitting together pay at once. Memory freed by reference
    counting is freed as before."""
    from casino_tui.app import quitting

    def stop() -> None:
        _quitting.set()
        gc.disable()

    quitting.when_quitting(stop)


def _leave(status: int) -> NoReturn:
    """End the child with ``status`` after what Python does at exit that the game relies on,
    without tearing the interpreter down.

    A fresh process's exit waits for its non-daemon threads (and runs ``threading``'s own exit
    hooks: ``concurrent.futures``), runs the ``atexit`` handlers (the app's release of a hung-up
    terminal, ``logging``, ``multiprocessing``'s children with ``--computers 0``, ``weakref``
    finalizers) and flushes the standard streams (status 120 when that fails); then it frees
    every module and object. In a forked child that last part is most of what quitting costs:
    freeing the objects it shares with the fork server writes to every one of their pages, about
    a third of a game's CPU when it is quit at the title (measured: docs/SERVE.md). So the child
    does the first three as Python does, in that order, and then ``os._exit`` (as
    ``multiprocessing``'s forked children end: their threads joined, their streams flushed).
    Everything the game must keep is done before ``main()`` returns: its saves are written and
    synced, the terminal is restored."""
    for step in (getattr(threading, "_shutdown", None), atexit._run_exitfuncs):
        if step is None:
            continue
        try:
            step()
        except BaseException:  # reported as Python reports it at exit, and on to the next
            with contextlib.suppress(Exception):
                traceback.print_exc()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except Exception:
            status = 120  # as Python's own exit when the last flush fails
    os._exit(status)


def _max_fd() -> int:
    try:
        return int(os.sysconf("SC_OPEN_MAX"))
    except (ValueError, OSError):
        return 65536


def _open_stdio() -> None:
    """Standard streams on the PTY, as Python opens them for a program on a terminal (UTF-8
    mode: ``surrogateescape``; standard error ``backslashreplace``; line buffered)."""
    stdin = open(0, encoding="utf-8", errors="surrogateescape", closefd=False)  # noqa: SIM115
    stdout = open(1, "w", encoding="utf-8", errors="surrogateescape", closefd=False,  # noqa: SIM115
                  buffering=1)
    stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False,  # noqa: SIM115
                  buffering=1)
    sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
    # Textual's driver writes to the original streams, as a fresh process has them.
    sys.__stdin__ = stdin  # type: ignore[misc]
    sys.__stdout__ = stdout  # type: ignore[misc]
    sys.__stderr__ = stderr  # type: ignore[misc]


__all__ = [
    "FIRST_FRAME_LIMIT",
    "FORK_SERVER_COMMAND",
    "FORK_SERVER_FLAGS",
    "GC_SPREAD",
    "KSM_RUN",
    "SESSION_GC_THRESHOLDS",
    "ForkServer",
    "ForkServerError",
    "ForkedGame",
    "autogroup_nice",
    "collect_after_first_frame",
    "collect_sooner",
    "fork_server_environment",
    "lower_after_first_frame",
    "lower_priority",
    "merge_pages",
    "merging_on",
    "no_collection_once_quitting",
    "once_after_first_frame",
    "serve_forks",
    "session_gc_thresholds",
]
