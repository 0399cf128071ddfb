"""Load test of ``casino-tui serve``: N scripted players at once, over real SSH, on loopback.

    python -m casino_tui.serve.load [--sessions 20] [--timeout 300] [--moves N]

It starts its own server (``casino-tui serve`` on 127.0.0.1, a free port, a temporary data
directory, no rate limit) and N asyncssh clients, each with its own key and a PTY. Every client
plays a whole round against the computer with the keys a person uses (title ``n``, Enter to
start; at each turn Right to look at the next card, then Enter to play the previewed move, or
``m`` and Enter to pick from the list when that card has no move), then quits with Ctrl+Q.
``--moves N`` quits after the player's first N moves instead (a quick check; the tests use it
through :func:`play_sessions`).

It prints: sessions finished, exit statuses, games saved (resumable after quitting), memory per
session (RSS and PSS of each game's process group, sampled every second; the figures at the
busiest moment), key-to-screen latency over SSH (from sending Right to the first byte of the
redrawn screen, measured only while the game waits for the player), time to the title screen
and to finish a round. Traffic goes only to 127.0.0.1, and everything stops after --timeout
seconds at the latest. This is a measuring tool, not a test: it does not fail on slowness.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import contextlib
import os
import re
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .players import PlayerDirs, has_saved_game

HOST = "127.0.0.1"
TITLE = "the classic fishing card game"
SETUP = "Preset"
TABLE = "Your hand"
YOUR_TURN = "Your turn"
ROUND_OVER = re.compile(r"Round \d+ summary")
SOUTH_MOVED = re.compile(r"South (trailed|took|raised|added|built|plucked|did not pluck)")
NO_MOVE = re.compile(r"there is no move to play|has no legal move here")
MOVE_LIST = "All legal moves"
KEY_RIGHT = b"\x1b[C"
KEY_ENTER = b"\r"
KEY_QUIT = b"\x11"  # Ctrl+Q
ESCAPES = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\"
                     r"|[()][0-9A-Za-z]|[@-Z\\-_=>])")


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
        self.closed = False

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
        if len(self.text) > 2_000_000:  # drop old text, keep the marks meaningful
            drop = len(self.text) - 1_000_000
            self.text = self.text[drop:]
            self.mark_at = max(0, self.mark_at - drop)
        self._changed.set()

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
            if self.closed:
                raise EOFError("the session ended")
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"none of {patterns} within {timeout}s")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)

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


@dataclass
class Result:
    number: int
    fingerprint: str = ""
    finished: bool = False
    exit_status: int | None = None
    error: str = ""
    connect_s: float = 0.0
    title_s: float = 0.0
    round_s: float = 0.0  # from the deal to the round's end (or to the last move played)
    round_over: bool = False
    turns: int = 0
    move_list_used: int = 0
    latencies: list[float] = field(default_factory=list)
    no_redraw: int = 0
    saved: bool | None = None


async def play_one(number: int, port: int, key: Any, size: tuple[int, int],
                   data_dir: Path, step_timeout: float, moves: int = 0) -> Result:
    import asyncssh

    res = Result(number, fingerprint=key.get_fingerprint())
    screen = Screen()
    t0 = time.monotonic()
    try:
        async with asyncssh.connect(HOST, port, username=f"load{number}", client_keys=[key],
                                    known_hosts=None, agent_path=None,
                                    preferred_auth="publickey") as conn:
            res.connect_s = time.monotonic() - t0
            process = await conn.create_process(term_type="xterm-256color", term_size=size,
                                                encoding=None)

            async def reader() -> None:
                try:
                    while True:
                        data = await process.stdout.read(65536)
                        if not data:
                            break
                        screen.feed(data)
                finally:
                    screen.close()

            read_task = asyncio.create_task(reader())
            try:
                await _script(process, screen, res, t0, step_timeout, moves)
                await asyncio.wait_for(process.wait_closed(), step_timeout)
                res.exit_status = process.exit_status
                # the game is closed now (an open one counts as "in use"): can it be continued?
                dirs = PlayerDirs.for_fingerprint(data_dir, res.fingerprint)
                res.saved = await asyncio.to_thread(has_saved_game, dirs.data)
                res.finished = res.exit_status == 0 and (
                    res.round_over or (moves > 0 and res.turns >= moves))
            finally:
                read_task.cancel()
    except (OSError, asyncssh.Error, TimeoutError, EOFError) as err:
        res.error = f"{type(err).__name__}: {err}"
    return res


async def _script(process: Any, screen: Screen, res: Result, t0: float, step: float,
                  moves: int) -> None:
    """Play until the round is over, or ``moves`` moves of the player (0: no limit)."""
    def send(data: bytes) -> None:
        process.stdin.write(data)

    await screen.wait(TITLE, timeout=step)
    res.title_s = time.monotonic() - t0
    await screen.quiet(0.1)
    screen.mark()
    send(b"n")
    await screen.wait(SETUP, timeout=step)
    await screen.quiet(0.1)
    screen.mark()
    send(KEY_ENTER)
    await screen.wait(TABLE, timeout=step)
    started = time.monotonic()
    while True:
        if await screen.wait(ROUND_OVER, YOUR_TURN, timeout=step) == 0:
            res.round_over = True
            break
        res.turns += 1
        await screen.quiet(0.15)
        # key-to-screen latency: Right redraws the hand, the preview and the move line
        before = screen.chunks
        sent = time.monotonic()
        send(KEY_RIGHT)
        arrived = await screen.next_chunk(before, timeout=2.0)
        if arrived is None:
            res.no_redraw += 1
        else:
            res.latencies.append(arrived - sent)
        await screen.quiet(0.05)
        screen.mark()
        send(KEY_ENTER)
        # the move is logged; after the round's last card the summary may cover the log
        seen = await screen.wait(ROUND_OVER, SOUTH_MOVED, NO_MOVE, timeout=step)
        if seen == 2:
            res.move_list_used += 1
            screen.mark()
            send(b"m")
            await screen.wait(MOVE_LIST, timeout=step)
            await screen.quiet(0.1)
            screen.mark()
            send(KEY_ENTER)
            seen = await screen.wait(ROUND_OVER, SOUTH_MOVED, timeout=step)
        if seen == 0:
            res.round_over = True
            break
        if moves and res.turns >= moves:
            break
    res.round_s = time.monotonic() - started
    await screen.quiet(0.2)
    send(KEY_QUIT)


# ---------------------------------------------------------------------- memory
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


def session_memory(server_pid: int) -> dict[int, tuple[int, int, int]]:
    """For each game (a child of the server leading its own process group): total RSS and
    PSS in KiB of its group, and the number of processes in it."""
    stats = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = _proc_stat(int(entry))
            if st is not None:
                stats[int(entry)] = st
    leaders = [pid for pid, (ppid, pgid) in stats.items() if ppid == server_pid and pgid == pid]
    out: dict[int, tuple[int, int, int]] = {}
    for leader in leaders:
        members = [pid for pid, (_ppid, pgid) in stats.items() if pgid == leader]
        rss = pss = 0
        for pid in members:
            r, p = _memory_kb(pid)
            rss += r
            pss += p
        out[leader] = (rss, pss, len(members))
    return out


@dataclass
class MemoryPeak:
    sessions: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    server_rss: int = 0
    at: float = 0.0


async def sample_memory(server_pid: int, peak: MemoryPeak, every: float = 1.0) -> None:
    start = time.monotonic()
    while True:
        snap = await asyncio.to_thread(session_memory, server_pid)
        if len(snap) > len(peak.sessions) or (
                len(snap) == len(peak.sessions)
                and sum(v[0] for v in snap.values()) > sum(v[0] for v in peak.sessions.values())):
            peak.sessions = snap
            peak.server_rss = _memory_kb(server_pid)[0]
            peak.at = time.monotonic() - start
        await asyncio.sleep(every)


# ---------------------------------------------------------------------- the run
def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


@dataclass
class LoadRun:
    """What :func:`play_sessions` measured."""

    sessions: int
    size: tuple[int, int]
    results: list[Result]
    peak: MemoryPeak
    elapsed: float
    server_cpu: float | None
    leftovers: int  # game process groups still running after the server stopped
    work: Path  # the data directory and the server log are in here

    @property
    def ok(self) -> bool:
        """Every session played to the end, quit with status 0 and left a game to continue,
        and no game outlived the server."""
        return (len(self.results) == self.sessions and not self.leftovers
                and all(r.finished and r.saved is not False for r in self.results))


async def play_sessions(sessions: int, *, timeout: float = 300.0,
                        size: tuple[int, int] = (100, 30), step_timeout: float = 60.0,
                        stagger: float = 0.0, moves: int = 0,
                        work: Path | None = None) -> LoadRun:
    """Start a server on 127.0.0.1 and ``sessions`` scripted players; stop it; measure.

    ``work`` (default: a new temporary directory) gets the server's data and log."""
    import asyncssh

    if work is None:
        work = Path(tempfile.mkdtemp(prefix="casino-tui-load-"))
    data_dir = work / "data"
    log_path = work / "server.log"
    log_file = open(log_path, "wb")  # noqa: SIM115 (closed below)
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "casino_tui", "serve", "--host", HOST, "--port", "0",
        "--data-dir", str(data_dir), "--max-sessions", str(max(sessions, 1)),
        "--rate-limit", "0", "--idle-timeout", "0",
        stdin=asyncio.subprocess.DEVNULL, stdout=log_file, stderr=log_file)
    started = time.monotonic()
    results: list[Result] = []
    peak = MemoryPeak()
    try:
        port = await _wait_port(log_path, server, 30)
        print(f"server pid {server.pid} on {HOST}:{port}, data in {data_dir}")
        keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(sessions)]
        sampler = asyncio.create_task(sample_memory(server.pid, peak))

        async def staggered(i: int) -> Result:
            await asyncio.sleep(i * stagger)
            return await play_one(i + 1, port, keys[i], size, data_dir, step_timeout, moves)

        tasks = [asyncio.create_task(staggered(i)) for i in range(sessions)]
        done, pending = await asyncio.wait(tasks, timeout=timeout)
        for t in pending:
            t.cancel()
        for i, t in enumerate(tasks):
            if t in done and not t.cancelled() and t.exception() is None:
                results.append(t.result())
            else:
                results.append(Result(i + 1, error="did not finish within --timeout"))
        sampler.cancel()
    finally:
        server_cpu = _cpu_seconds(server.pid)
        if server.returncode is None:
            server.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(server.wait(), 20)
            except TimeoutError:
                server.kill()
                await server.wait()
        log_file.close()
    elapsed = time.monotonic() - started
    return LoadRun(sessions, size, results, peak, elapsed, server_cpu,
                   len(session_memory(server.pid)), work)


async def run(sessions: int, timeout: float, size: tuple[int, int], step_timeout: float,
              stagger: float, keep: bool, moves: int = 0) -> int:
    done = await play_sessions(sessions, timeout=timeout, size=size,
                               step_timeout=step_timeout, stagger=stagger, moves=moves)
    report(done.results, done.peak, done.elapsed, sessions, size, moves)
    if done.server_cpu is not None:
        print(f"server process (SSH, PTY copying): {done.server_cpu:.1f} s of CPU in "
              f"{done.elapsed:.0f} s ({done.server_cpu / done.elapsed * 100:.0f}% of one core)")
    if done.leftovers:
        print(f"WARNING: {done.leftovers} game process group(s) still running")
    if keep:
        print(f"kept {done.work} (server log: {done.work / 'server.log'})")
    else:
        shutil.rmtree(done.work, ignore_errors=True)
    return 0 if done.ok else 1


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


def report(results: list[Result], peak: MemoryPeak, elapsed: float, sessions: int,
           size: tuple[int, int], moves: int = 0) -> None:
    finished = [r for r in results if r.finished]
    played = f"played {moves} moves (or a whole round)" if moves else "played a whole round"
    print(f"\n{len(finished)}/{sessions} sessions {played} and quit with status 0 "
          f"({elapsed:.1f} s in all; terminal {size[0]}x{size[1]})")
    for r in results:
        if not r.finished:
            print(f"  session {r.number}: NOT finished: exit status {r.exit_status} "
                  f"{r.error} (turns played {r.turns})")
    for r in results:
        if r.finished and r.saved is False:
            print(f"  session {r.number}: no game to continue after quitting")
    saved = [r.saved for r in results if r.saved is not None]
    if saved:
        print(f"game saved and resumable after quitting: {sum(saved)}/{len(saved)} players "
              "(an unfinished game that Continue / --continue would open)")
    lat = [x for r in results for x in r.latencies]
    if lat:
        print(f"key-to-screen latency over SSH ({len(lat)} key presses): median "
              f"{statistics.median(lat) * 1000:.1f} ms, p95 {_percentile(lat, 0.95) * 1000:.1f} "
              f"ms, p99 {_percentile(lat, 0.99) * 1000:.1f} ms, max {max(lat) * 1000:.1f} ms")
    no_redraw = sum(r.no_redraw for r in results)
    if no_redraw:
        print(f"  ({no_redraw} key presses redrew nothing within 2 s: not counted)")
    if peak.sessions:
        rss = [v[0] / 1024 for v in peak.sessions.values()]
        pss = [v[1] / 1024 for v in peak.sessions.values()]
        procs = [v[2] for v in peak.sessions.values()]
        print(f"memory per session at the busiest moment ({len(rss)} games running, "
              f"{peak.at:.0f} s in): RSS mean {statistics.mean(rss):.1f} MiB (max "
              f"{max(rss):.1f}), PSS mean {statistics.mean(pss):.1f} MiB (max {max(pss):.1f}); "
              f"{statistics.mean(procs):.1f} processes per game (app + computer player worker "
              f"+ multiprocessing resource tracker); server process RSS "
              f"{peak.server_rss / 1024:.1f} MiB")
    if finished:
        for label, values in (("connect + login", [r.connect_s for r in finished]),
                              ("to the title screen", [r.title_s for r in finished]),
                              ("one round" if not moves else f"{moves} moves",
                               [r.round_s for r in finished])):
            print(f"{label}: median {statistics.median(values):.2f} s, max "
                  f"{max(values):.2f} s")
        turns = [r.turns for r in finished]
        what = "moves played" if moves else "turns per round (the player's)"
        print(f"{what}: median {statistics.median(turns):.0f}; "
              f"move list used {sum(r.move_list_used for r in finished)} times")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m casino_tui.serve.load",
        description="Load test of casino-tui serve on 127.0.0.1: scripted players over SSH.")
    parser.add_argument("--sessions", type=int, default=20, metavar="N",
                        help="players at once (default 20)")
    parser.add_argument("--timeout", type=float, default=300.0, metavar="SECONDS",
                        help="stop everything after this long (default 300)")
    parser.add_argument("--step-timeout", type=float, default=60.0, metavar="SECONDS",
                        help="longest wait for one expected screen (default 60)")
    parser.add_argument("--stagger", type=float, default=0.0, metavar="SECONDS",
                        help="pause between connections (default 0: all at once)")
    parser.add_argument("--size", default="100x30", metavar="WxH",
                        help="terminal size of every client (default 100x30)")
    parser.add_argument("--moves", type=int, default=0, metavar="N",
                        help="quit after the player's first N moves (default 0: play the "
                             "whole round)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the temporary data directory and server log")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        w, h = (int(x) for x in args.size.lower().split("x"))
    except ValueError:
        parser.error("--size must look like 100x30")
    if not 1 <= args.sessions <= 200:
        parser.error("--sessions must be between 1 and 200")
    if args.timeout <= 0 or args.step_timeout <= 0:
        parser.error("timeouts must be positive")
    if args.moves < 0:
        parser.error("--moves must not be negative")
    return asyncio.run(run(args.sessions, args.timeout, (w, h), args.step_timeout,
                           args.stagger, args.keep, args.moves))


if __name__ == "__main__":
    sys.exit(main())
