"""What the load tool (:mod:`benchmarks.load`) is made of: the screen a scripted SSH
player reads, the keyboard it presses at a human pace, memory sampling of the server's games, a
server of its own on loopback.

:class:`Screen` keeps the text a terminal has received with the escape sequences removed, so that
a script can wait for words ("Your turn") and tell when each chunk of output arrived.
:class:`Keyboard` sends one player's keys: at most one every ``pace`` seconds, each only once the
screen has been quiet for a moment, and times each key to the first output after it.
:func:`session_memory` finds each game the server runs (the process the server's log names at
the session's start, leading its own process group) and adds up the RSS and PSS of its group's
processes; the processes below the server are counted too. :class:`LoopbackServer` runs
``casino-tui serve`` on 127.0.0.1 (a free port, its own data directory, no rate limit, its
metrics on a free port: ``curl`` them while it runs) and
samples its games' memory while it runs.
"""

from __future__ import annotations

import asyncio
import bisect
import codecs
import contextlib
import os
import random
import re
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"
KEEP_TEXT = 200_000  # characters of a screen's text kept (a frame is a few thousand)
TITLE = "the classic fishing card game"
# The title's Tables entry, added once the game has reached the server's tables (after the
# title itself is drawn): ``t`` before it does nothing.
TABLES_ENTRY = "play with people here"
YOUR_TURN = "Your turn"
ROUND_OVER = re.compile(r"Round \d+ summary")
MOVED = r"(trailed|took|raised|added|built|plucked|did not pluck)"  # the log's verbs
NO_MOVE = re.compile(r"there is no move to play|has no legal move here")
MOVE_LIST = "All legal moves"
KEY_RIGHT = b"\x1b[C"
KEY_ENTER = b"\r"
KEY_QUIT = b"\x11"  # Ctrl+Q
ESCAPES = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\"
                     r"|[()][0-9A-Za-z]|[@-Z\\-_=>])")


def moved(name: str) -> re.Pattern[str]:
    """A move of the player called ``name`` in the game's log (``Ann trailed 8♠``)."""
    return re.compile(rf"(?<![\w]){re.escape(name)} {MOVED}")


class Screen:
    """The text a session has received (escape sequences removed), with waiting helpers."""

    def __init__(self) -> None:
        self.text = ""
        self.chunks = 0
        self.last_chunk_at = 0.0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._raw_tail = ""
        self._changed = asyncio.Event()
        self.mark_at = 0
        self.dropped = 0  # characters dropped from the start of ``text``
        self.closed = False
        # where each chunk's text ends and when it arrived (for :meth:`arrival`)
        self._ends: list[int] = []
        self._times: list[float] = []

    def feed(self, data: bytes) -> None:
        self.last_chunk_at = time.monotonic()
        self.chunks += 1
        text = self._raw_tail + self._decoder.decode(data)
        # keep an unfinished escape sequence for the next chunk
        cut = text.rfind("\x1b")
        if cut != -1 and not ESCAPES.match(text, cut):
            text, self._raw_tail = text[:cut], text[cut:]
        else:
            self._raw_tail = ""
        self.text += ESCAPES.sub("", text)
        self._ends.append(len(self.text))
        self._times.append(self.last_chunk_at)
        if len(self.text) > KEEP_TEXT * 2:  # drop old text, keep the marks meaningful
            drop = len(self.text) - KEEP_TEXT
            self.text = self.text[drop:]
            self.dropped += drop
            self.mark_at = max(0, self.mark_at - drop)
            keep = bisect.bisect_right(self._ends, drop)
            self._ends = [end - drop for end in self._ends[keep:]]
            self._times = self._times[keep:]
        self._changed.set()

    def arrival(self, offset: int) -> float:
        """When the chunk holding the text at ``offset`` arrived."""
        i = bisect.bisect_right(self._ends, offset)
        return self._times[min(i, len(self._times) - 1)] if self._times else self.last_chunk_at

    def close(self) -> None:
        self.closed = True
        self._changed.set()

    def mark(self) -> None:
        """Later waits look only at text that arrives after this."""
        self.mark_at = len(self.text)

    async def wait(self, *patterns: str | re.Pattern[str], timeout: float) -> int:
        """Index of the first pattern seen after the mark, which moves past it (text after the
        match still counts for the next wait); TimeoutError if none comes."""
        deadline = time.monotonic() + timeout
        while True:
            recent = self.text[self.mark_at:]
            for i, p in enumerate(patterns):
                pattern = p if isinstance(p, re.Pattern) else re.compile(re.escape(p))
                found = pattern.search(recent)
                if found:
                    self.mark_at += found.end()
                    return i
            await self._more_text(deadline, patterns, timeout)

    @property
    def received(self) -> int:
        """Characters of text received so far (dropped ones included): an offset for
        :meth:`seen_after`."""
        return self.dropped + len(self.text)

    async def seen_after(self, received: int, *patterns: str | re.Pattern[str],
                         timeout: float) -> tuple[int, float]:
        """The first of ``patterns`` in the text after the first ``received`` characters
        (the mark stays where it is): its index and when the chunk that completed it
        arrived."""
        deadline = time.monotonic() + timeout
        compiled = [p if isinstance(p, re.Pattern) else re.compile(re.escape(p))
                    for p in patterns]
        while True:
            best: tuple[int, int] | None = None  # (end of the match, index)
            offset = max(0, received - self.dropped)
            for i, pattern in enumerate(compiled):
                found = pattern.search(self.text, offset)
                if found and (best is None or found.end() < best[0]):
                    best = (found.end(), i)
            if best is not None:
                return best[1], self.arrival(best[0] - 1)
            await self._more_text(deadline, patterns, timeout)

    async def _more_text(self, deadline: float, patterns: tuple[str | re.Pattern[str], ...],
                         timeout: float) -> None:
        """Until more text comes: EOFError when the session ended, TimeoutError (naming the
        ``patterns`` waited for) after ``deadline``."""
        if self.closed:
            raise EOFError("the session ended")
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"none of {patterns} within {timeout}s")
        self._changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), left)

    async def read_from(self, stream: Any) -> None:
        """Take everything ``stream`` (an SSH process's standard output, as bytes) sends,
        until it ends; then the screen is closed."""
        try:
            while data := await stream.read(65536):
                self.feed(data)
        finally:
            self.close()

    async def quiet(self, period: float, timeout: float = 5.0) -> None:
        """Until no output has come for ``period`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            idle = time.monotonic() - self.last_chunk_at
            if idle >= period:
                return
            await asyncio.sleep(period - idle)

    async def next_chunk(self, after: int, timeout: float) -> float | None:
        """When the first chunk after chunk number ``after`` arrived (None: none came)."""
        deadline = time.monotonic() + timeout
        while self.chunks <= after:
            left = deadline - time.monotonic()
            if left <= 0 or self.closed:
                return None
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)
        return self.last_chunk_at


class Keyboard:
    """One player's keys, at a human pace: a key goes no sooner than ``pace`` seconds after the
    player's previous key (the first within ``pace`` of the start, at random, so that a crowd
    does not press in step), and only when the screen has been quiet for ``settle`` seconds.
    :meth:`press` returns once the key's first output arrived (or ``redraw_timeout`` passed):
    the caller then waits for the key's effect before the next key. ``pace`` 0: as fast as the
    screen allows."""

    def __init__(self, send: Any, screen: Screen, pace: float = 0.0,
                 rng: random.Random | None = None, redraw_timeout: float = 5.0) -> None:
        self.send = send
        self.screen = screen
        self.pace = pace
        self.redraw_timeout = redraw_timeout
        self.next_at = time.monotonic() + (rng or random.Random()).uniform(0, pace)
        self.latencies: list[float] = []  # measured keys: sent to the first output after it
        self.no_redraw = 0  # measured keys with no output within redraw_timeout
        self.sent_at: list[float] = []  # when each key went
        self.measured_at: list[float] = []  # when each key of :attr:`latencies` went

    async def paced(self) -> None:
        """Until the player's next key may go (``pace`` after the previous one)."""
        wait = self.next_at - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)

    def sent(self, at: float) -> None:
        """A key went at ``at`` (for a caller that sends by itself, after :meth:`paced`)."""
        self.next_at = at + self.pace
        self.sent_at.append(at)

    async def press(self, data: bytes, settle: float = 0.1, measure: bool = False) -> None:
        """Send ``data`` (after the pace and the quiet) with the screen marked just before;
        ``measure``: time it to the first output after it (:attr:`latencies`, or
        :attr:`no_redraw` when none comes within :attr:`redraw_timeout`)."""
        await self.paced()
        await self.screen.quiet(settle)
        self.screen.mark()
        before = self.screen.chunks
        sent = time.monotonic()
        self.send(data)
        self.sent(sent)
        if not measure:
            return
        arrived = await self.screen.next_chunk(before, timeout=self.redraw_timeout)
        if arrived is None:
            self.no_redraw += 1
        else:
            self.latencies.append(arrived - sent)
            self.measured_at.append(sent)


def _proc_stat(pid: int) -> tuple[int, int] | None:
    """(ppid, pgid) of a live process."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields[0] == "Z":
        return None
    return int(fields[1]), int(fields[2])


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a live process."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children_cpu_seconds(pid: int) -> float:
    """User + system CPU time of the ended children a live process has reaped (0 if gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


def _memory_kb(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of a process in KiB (0, 0 if it is gone)."""
    rss = pss = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Rss:"):
                rss = int(line.split()[1])
            elif line.startswith("Pss:"):
                pss = int(line.split()[1])
    except (OSError, ValueError):
        pass
    return rss, pss


SESSION_PID = re.compile(r"session \d+ start: .* pid (\d+)")


def session_pids(log_path: Path) -> list[int]:
    """The game processes the server's log names at each session's start."""
    try:
        text = log_path.read_text(errors="replace")
    except OSError:
        return []
    return [int(pid) for pid in SESSION_PID.findall(text)]


def session_memory(server_pid: int, cpu: dict[int, float] | None = None,
                   named: Sequence[int] | None = None) -> dict[int, tuple[int, int, int]]:
    """For each game (each of ``named`` still alive, the pids the server's log gives; without
    them, each child of the server, or of its fork server, leading its own process group):
    total RSS and PSS in KiB of its process group, and the number of processes in it. ``cpu``:
    gets each game's CPU seconds so far (its processes' user and system time)."""
    stats = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = _proc_stat(int(entry))
            if st is not None:
                stats[int(entry)] = st
    if named is not None:
        leaders = [pid for pid in named if pid in stats and stats[pid][1] == pid]
    else:
        parents = {server_pid, *fork_servers(server_pid, stats)}
        leaders = [pid for pid, (ppid, pgid) in stats.items()
                   if ppid in parents and pgid == pid]
    out: dict[int, tuple[int, int, int]] = {}
    for leader in leaders:
        members = [pid for pid, (_ppid, pgid) in stats.items() if pgid == leader]
        rss = pss = 0
        seconds = 0.0
        for pid in members:
            r, p = _memory_kb(pid)
            rss += r
            pss += p
            seconds += _cpu_seconds(pid) or 0.0
        out[leader] = (rss, pss, len(members))
        if cpu is not None:
            cpu[leader] = max(cpu.get(leader, 0.0), seconds)
    return out


def fork_servers(server_pid: int, stats: dict[int, tuple[int, int]] | None = None) -> list[int]:
    """The server's fork server(s): its children in its own process group that have children
    leading their own groups (the games), or none yet. The server's other children in its group
    are the tables' computer workers."""
    if stats is None:
        stats = {int(e): st for e in os.listdir("/proc") if e.isdigit()
                 and (st := _proc_stat(int(e))) is not None}
    helpers = {pid for pid, (ppid, pgid) in stats.items() if ppid == server_pid and pgid != pid}
    out = []
    for pid in helpers:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"_fork-server" in cmdline:
            out.append(pid)
    return out


def groups_alive(pgids: Sequence[int]) -> int:
    """How many of these process groups still have a live process."""
    wanted = set(pgids)
    alive = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = _proc_stat(int(entry))
            if st is not None and st[1] in wanted:
                alive.add(st[1])
    return len(alive)


@dataclass
class MemoryPeak:
    """The memory at the busiest moment (the most games, then the most RSS), in KiB."""

    sessions: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    server_rss: int = 0
    server_pss: int = 0
    forker_pss: int = 0  # the fork server's PSS in KiB (0: none)
    at: float = 0.0
    cpu: dict[int, float] = field(default_factory=dict)  # each game's CPU seconds, last seen
    # every process below the server then (games, their workers, shared workers, forks)
    tree_processes: int = 0
    tree_pss: int = 0
    tree_rss: int = 0


async def sample_memory(server_pid: int, peak: MemoryPeak, every: float = 1.0,
                        log_path: Path | None = None) -> None:
    from casino_tui.serve.metrics import tree_memory

    start = time.monotonic()
    while True:
        named = session_pids(log_path) if log_path is not None else None
        snap = await asyncio.to_thread(session_memory, server_pid, peak.cpu, named)
        if len(snap) > len(peak.sessions) or (
                len(snap) == len(peak.sessions)
                and sum(v[0] for v in snap.values()) > sum(v[0] for v in peak.sessions.values())):
            peak.sessions = snap
            peak.server_rss, peak.server_pss = _memory_kb(server_pid)
            _rss, _pss, tree_rss, tree_pss, n = await asyncio.to_thread(tree_memory, server_pid)
            peak.tree_rss, peak.tree_pss, peak.tree_processes = tree_rss // 1024, \
                tree_pss // 1024, n
            peak.forker_pss = sum(_memory_kb(pid)[1] for pid in fork_servers(server_pid))
            peak.at = time.monotonic() - start
        await asyncio.sleep(every)


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


async def _wait_port(log_path: Path, server: asyncio.subprocess.Process, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(r"listening on \S+ port (\d+)", log_path.read_text(errors="replace"))
        if found:
            return int(found.group(1))
        if server.returncode is not None:
            break
        await asyncio.sleep(0.05)
    raise RuntimeError(f"the server did not start:\n{log_path.read_text(errors='replace')}")


class LoopbackServer:
    """``casino-tui serve`` on 127.0.0.1 for a load run: :meth:`start` (the port), then
    :meth:`stop`; its games' memory is sampled every second in between (:attr:`peak`).
    ``work`` gets the data directory (``data``) and the server's log (``server.log``)."""

    def __init__(self, work: Path, max_sessions: int, fork_server: bool = True,
                 store: str | None = None, session_nice: int | None = None) -> None:
        self.work = work
        self.store = store  # serve --store URL (the shared store), or None
        self.session_nice = session_nice  # --session-nice (None: the server's default)
        self.data_dir = work / "data"
        self.log_path = work / "server.log"
        self.max_sessions = max(max_sessions, 1)
        self.fork_server = fork_server
        self.peak = MemoryPeak()
        self.cpu: float | None = None  # the server process's CPU seconds when it stopped
        self.leftovers = 0  # game process groups still running after the server stopped
        # the CPU seconds of the games the fork server forked and reaped (every game that
        # ended before the server stopped; its own warm-up not counted)
        self.forked_cpu: float | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._sampler: asyncio.Task[None] | None = None
        self._log_file: Any = None

    @property
    def pid(self) -> int:
        assert self._process is not None
        return self._process.pid

    async def start(self) -> int:
        """Start the server; its port once it listens."""
        self._log_file = open(self.log_path, "wb")  # noqa: SIM115 (closed in stop)
        self._process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "casino_tui", "serve", "--host", HOST, "--port", "0",
            "--data-dir", str(self.data_dir), "--max-sessions", str(self.max_sessions),
            "--rate-limit", "0", "--idle-timeout", "0", "--metrics-port", "0",
            *(() if self.fork_server else ("--no-fork-server",)),
            *(("--store", self.store) if self.store else ()),
            *(() if self.session_nice is None else ("--session-nice", str(self.session_nice))),
            stdin=asyncio.subprocess.DEVNULL, stdout=self._log_file, stderr=self._log_file)
        port = await _wait_port(self.log_path, self._process, 30)
        metrics = re.search(r"metrics: (\S+)", self.log_path.read_text(errors="replace"))
        print(f"server pid {self._process.pid} on {HOST}:{port}, data in {self.data_dir}"
              f"{f', metrics at {metrics.group(1)}' if metrics else ''}", file=sys.stderr)
        self._sampler = asyncio.create_task(sample_memory(self._process.pid, self.peak,
                                                          log_path=self.log_path))
        return port

    async def stop(self) -> None:
        """Stop sampling and the server (SIGTERM, then SIGKILL after 20 s); count the games
        that outlived it."""
        if self._sampler is not None:
            self._sampler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sampler
        server = self._process
        if server is not None:
            self.cpu = _cpu_seconds(server.pid)
            forkers = fork_servers(server.pid)
            if forkers:
                self.forked_cpu = sum(_children_cpu_seconds(pid) for pid in forkers)
            if server.returncode is None:
                server.send_signal(signal.SIGTERM)
                try:
                    await asyncio.wait_for(server.wait(), 20)
                except TimeoutError:
                    server.kill()
                    await server.wait()
            # every game seen while sampling or named in the log (the fork server's children
            # outlive the server as orphans if they are not hung up)
            self.leftovers = groups_alive([*self.peak.cpu, *session_pids(self.log_path),
                                           *session_memory(server.pid)])
        if self._log_file is not None:
            self._log_file.close()
