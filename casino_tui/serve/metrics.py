"""What ``casino-tui serve`` reports to its operator: :class:`ServerMetrics`.

The server records into one :class:`ServerMetrics` as things happen (a login, a refusal and
why, a key's way to the screen, a computer's move at the tables); what is true at one moment
(players connected, games, tables, memory) is read when asked, into a :class:`Snapshot`. Two
ways to ask:

- ``--metrics-port PORT`` (:class:`MetricsEndpoint`): ``GET /metrics`` in Prometheus's text
  exposition format 0.0.4, on its own port, on 127.0.0.1 unless ``--metrics-host`` says
  otherwise (never on the web front end's port, which a reverse proxy makes public);
- ``kill -USR1 PID``: the server logs one line (:meth:`Snapshot.summary`).

The text format is written here rather than with ``prometheus_client``: the figures are a few
counters, gauges read at scrape time and two histograms, and the library (which imports
``http.server``, ``wsgiref`` and more: 0.3-0.7 s at the server's start on this 2-core machine)
now writes the newer 1.0.0 variant unless told otherwise. The tests read our output with
``prometheus_client``'s own parser.

Memory comes from ``/proc``: the server's RSS and PSS (``smaps_rollup``), and the total PSS and
RSS of every process below the server (the players' games and their computer workers, the
tables' computer workers, the browser sessions' apps), read in a thread.
"""

from __future__ import annotations

import asyncio
import bisect
import collections
import contextlib
import logging
import math
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from casino_tui.ai.pool import PoolStats
    from casino_tui.engine import Move, SeatView
    from casino_tui.table.controller import Thinker

    from .server import GameServer

log = logging.getLogger("casino_tui.serve")

# Why a login was refused: the server is full; the address is over --rate-limit; the key is not
# in --authorized-keys; the client asked for no terminal (ssh -T); it asked for a command or a
# subsystem (sftp) instead of the game.
REFUSAL_REASONS = ("full", "rate_limit", "not_listed", "no_terminal", "command", "store")
# A key whose next output comes later than this is not a key-to-screen sample: it changed
# nothing on the screen, and what came later was drawn for another reason (a computer's move).
KEY_ANSWER_LIMIT = 5.0
KEY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
COMPUTER_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0)
RECENT = 2000  # samples kept for the one-line summary's percentiles
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
PREFIX = "casino_"


class Histogram:
    """Observations counted into buckets (``le``, cumulative when written), with their sum;
    the latest :data:`RECENT` kept for :meth:`percentile`."""

    def __init__(self, buckets: Sequence[float]) -> None:
        self.bounds = tuple(sorted(buckets))
        self.counts = [0] * (len(self.bounds) + 1)  # the last: above every bound
        self.sum = 0.0
        self.count = 0
        self.recent: collections.deque[float] = collections.deque(maxlen=RECENT)

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, value)] += 1
        self.sum += value
        self.count += 1
        self.recent.append(value)

    def percentile(self, q: float) -> float | None:
        """The ``q`` quantile (0 to 1) of the recent observations; None without any."""
        if not self.recent:
            return None
        ordered = sorted(self.recent)
        return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1 if q else 0)]

    def cumulative(self) -> list[tuple[str, int]]:
        """(``le``, observations at or below it) for each bound and ``+Inf``."""
        out, total = [], 0
        for bound, n in zip((*self.bounds, math.inf), self.counts, strict=True):
            total += n
            out.append((_number(bound), total))
        return out


@dataclass
class Snapshot:
    """What is true at one moment, with the counters and histograms as they stand."""

    players: dict[str, int]  # by front: ssh, browser
    games: dict[str, int]
    tables: dict[str, int]  # open (waiting for players), in_play, finished (not yet closed)
    computer_waiting: int
    computer_workers: int
    server_rss: int  # bytes
    server_pss: int
    children_rss: int
    children_pss: int
    children: int  # processes below the server
    metrics: ServerMetrics
    pool: PoolStats | None = None  # the server's one pool of computer players
    joins_refused: int = 0  # join codes tried too soon after wrong ones (the tables)
    wrong_codes: int = 0  # join codes tried that name no table
    store_up: bool | None = None  # the shared store answers (None: no --store)
    store_unsent: int = 0  # players whose last files wait here for the store

    def exposition(self) -> str:
        """The Prometheus text exposition format 0.0.4."""
        m = self.metrics
        out: list[str] = []
        _family(out, "players_connected", "gauge",
                "Players logged in (SSH: connections, with a game or not; browser: sessions).",
                [({"front": k}, v) for k, v in self.players.items()])
        _family(out, "sessions_in_game", "gauge", "Sessions running a game, by front end.",
                [({"front": k}, v) for k, v in self.games.items()])
        _family(out, "tables", "gauge",
                "Tables by state: open (waiting for players), in_play, finished (not closed).",
                [({"state": k}, v) for k, v in self.tables.items()])
        pool = self.pool
        if pool is not None:
            _family(out, "computer_moves_waiting", "gauge",
                    "Requests of every game (moves, hints, reviews; solo and at tables) waiting "
                    "for a process of the pool of computer players.", [({}, pool.waiting)])
            _family(out, "computer_workers", "gauge",
                    "Processes of the pool of computer players (searches and quick levels).",
                    [({}, pool.workers + pool.fast_workers)])
            _buckets(out, "computer_queue_wait_seconds",
                     "From a request reaching the pool of computer players to a process "
                     "taking it.", pool.wait_buckets, pool.started, pool.wait_sum)
            _family(out, "computer_answers_total", "counter",
                    "Requests of the pool answered, and those answered after their deadline.",
                    [({"when": "in_time"}, pool.answered - pool.late),
                     ({"when": "late"}, pool.late)])
        else:
            _family(out, "computer_moves_waiting", "gauge",
                    "Computer moves the tables asked for and are waiting for (thinking "
                    "included).", [({}, self.computer_waiting)])
            _family(out, "computer_workers", "gauge",
                    "Worker processes thinking for the computers at the tables.",
                    [({}, self.computer_workers)])
        _histogram(out, "computer_move_wait_seconds",
                   "From a table asking for a computer's move to the move (queue and thinking).",
                   m.computer_wait)
        _histogram(out, "key_to_screen_seconds",
                   "SSH sessions: from a key's arrival from the client to the first output of "
                   "the game after it.", m.key_latency)
        _family(out, "keys_without_output_total", "counter",
                f"Keys with no output from the game within {KEY_ANSWER_LIMIT:g} s (not in "
                "key_to_screen_seconds).", [({}, m.keys_unanswered)])
        _family(out, "server_memory_bytes", "gauge", "The server process's memory (/proc).",
                [({"kind": "rss"}, self.server_rss), ({"kind": "pss"}, self.server_pss)])
        _family(out, "children_memory_bytes", "gauge",
                "Total memory of every process below the server: games, their computer "
                "workers, the tables' computer workers (/proc).",
                [({"kind": "rss"}, self.children_rss), ({"kind": "pss"}, self.children_pss)])
        _family(out, "children_processes", "gauge", "Processes below the server.",
                [({}, self.children)])
        _family(out, "logins_total", "counter", "SSH logins admitted.", [({}, m.logins)])
        _family(out, "refused_logins_total", "counter",
                "SSH connections refused, by reason: full, rate_limit, not_listed (key not in "
                "--authorized-keys), no_terminal, command (a command or subsystem asked for), "
                "store (the shared store could not be reached).",
                [({"reason": k}, v) for k, v in m.refused.items()])
        _family(out, "join_codes_total", "counter",
                "Join codes tried at the tables that were refused: wrong (no such table), "
                "too_soon (tried before the wait after earlier wrong codes was over).",
                [({"refused": "wrong"}, self.wrong_codes),
                 ({"refused": "too_soon"}, self.joins_refused)])
        if self.store_up is not None:
            _family(out, "store_up", "gauge",
                    "1 while the shared store (--store) answers, 0 while it is away (new "
                    "logins are refused).", [({}, int(self.store_up))])
            _family(out, "store_players_unsent", "gauge",
                    "Players whose last files are kept here until the store takes them.",
                    [({}, self.store_unsent)])
        _family(out, "start_time_seconds", "gauge", "When the server started (Unix time).",
                [({}, m.started)])
        return "\n".join(out) + "\n"

    def summary(self) -> str:
        """One line for the log."""
        m = self.metrics
        mib = 1024 * 1024
        key = m.key_latency
        p50, p95 = key.percentile(0.5), key.percentile(0.95)
        keys = (f"key to screen p50 {p50 * 1000:.0f} ms p95 {p95 * 1000:.0f} ms over the last "
                f"{len(key.recent)} keys" if p50 is not None and p95 is not None
                else "key to screen: no keys yet")
        wait = m.computer_wait.percentile(0.95)
        waiting = self.pool.waiting if self.pool is not None else self.computer_waiting
        computers = (f"computer moves waiting {waiting} (tables' wait p95 "
                     f"{wait * 1000:.0f} ms)" if wait is not None
                     else f"computer moves waiting {waiting}")
        refused = ", ".join(f"{k} {v}" for k, v in m.refused.items())
        return (f"status: {sum(self.players.values())} players connected "
                f"({self.players.get('ssh', 0)} ssh, {self.players.get('browser', 0)} browser), "
                f"{sum(self.games.values())} in a game; tables {self.tables.get('open', 0)} "
                f"open, {self.tables.get('in_play', 0)} in play; {computers}; {keys}; memory: "
                f"server {self.server_rss / mib:.0f} MiB RSS, {self.children} processes below "
                f"it {self.children_pss / mib:.0f} MiB PSS; logins {m.logins}; refused: "
                f"{refused}{self._store_summary()}")

    def _store_summary(self) -> str:
        if self.store_up is None:
            return ""
        kept = (f" ({self.store_unsent} players' last files kept here)"
                if self.store_unsent else "")
        return f"; store {'up' if self.store_up else 'away'}{kept}"


@dataclass
class ServerMetrics:
    """The server's counters and histograms, recorded into as things happen."""

    refused: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(REFUSAL_REASONS, 0))
    logins: int = 0
    key_latency: Histogram = field(default_factory=lambda: Histogram(KEY_BUCKETS))
    keys_unanswered: int = 0
    computer_wait: Histogram = field(default_factory=lambda: Histogram(COMPUTER_BUCKETS))
    computer_waiting: int = 0
    started: float = field(default_factory=time.time)
    _reading: asyncio.Lock | None = None

    def refuse(self, reason: str) -> None:
        """Count a refused login; ``reason`` is one of :data:`REFUSAL_REASONS`."""
        self.refused[reason] = self.refused.get(reason, 0) + 1

    def key_answered(self, seconds: float) -> None:
        """A key's way to the screen (:attr:`PtyGame.on_key_latency`)."""
        if seconds > KEY_ANSWER_LIMIT:
            self.keys_unanswered += 1
        else:
            self.key_latency.observe(seconds)

    def timed(self, thinker: Thinker) -> Thinker:
        """``thinker``, with its moves counted while awaited and their wait observed."""
        return _TimedThinker(thinker, self)

    async def snapshot(self, server: GameServer) -> Snapshot:
        """Read what is true now: the server's state here, /proc in a thread (one reading
        at a time, however many ask)."""
        web = server.web_front.web if server.web_front is not None else None
        browser = len(web.sessions()) if web is not None else 0
        players = {"ssh": len(server.connections), "browser": browser}
        games = {"ssh": len(server.sessions), "browser": browser}
        tables = server.hub.census() if server.hub is not None else {}
        tables = {k: tables.get(k, 0) for k in ("open", "in_play", "finished")}
        pool = server.pool.stats() if server.pool is not None else None
        workers = pool.workers + pool.fast_workers if pool is not None else 0
        if self._reading is None:
            self._reading = asyncio.Lock()
        async with self._reading:
            memory = await asyncio.to_thread(tree_memory, os.getpid())
        service = server.hub_service
        shared = server.shared
        return Snapshot(players, games, tables, self.computer_waiting, workers, *memory,
                        metrics=self, pool=pool,
                        joins_refused=service.refused_joins if service is not None else 0,
                        wrong_codes=service.codes.wrong if service is not None else 0,
                        store_up=shared.link.available if shared is not None else None,
                        store_unsent=shared.unsent if shared is not None else 0)


class _TimedThinker:
    def __init__(self, thinker: Thinker, metrics: ServerMetrics) -> None:
        self._thinker = thinker
        self._metrics = metrics

    async def choose(self, view: SeatView, level: str, seed: int) -> Move:
        m = self._metrics
        m.computer_waiting += 1
        asked = time.monotonic()
        try:
            return await self._thinker.choose(view, level, seed)
        finally:
            m.computer_waiting -= 1
            m.computer_wait.observe(time.monotonic() - asked)


# ---------------------------------------------------------------------- the text format
def _number(value: float) -> str:
    if isinstance(value, int):
        return str(value)
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if math.isnan(value):
        return "NaN"
    return repr(float(value))


def _labels(labels: dict[str, str]) -> str:
    if not labels:
        return ""
    inner = ",".join(f'{k}="{_escape(v, quotes=True)}"' for k, v in labels.items())
    return "{" + inner + "}"


def _escape(text: str, *, quotes: bool = False) -> str:
    text = text.replace("\\", "\\\\").replace("\n", "\\n")
    return text.replace('"', '\\"') if quotes else text


def _family(out: list[str], name: str, kind: str, help_: str,
            samples: Iterable[tuple[dict[str, str], float]]) -> None:
    name = PREFIX + name
    out.append(f"# HELP {name} {_escape(help_)}")
    out.append(f"# TYPE {name} {kind}")
    for labels, value in samples:
        out.append(f"{name}{_labels(labels)} {_number(value)}")


def _histogram(out: list[str], name: str, help_: str, hist: Histogram) -> None:
    full = PREFIX + name
    out.append(f"# HELP {full} {_escape(help_)}")
    out.append(f"# TYPE {full} histogram")
    for le, count in hist.cumulative():
        out.append(f'{full}_bucket{{le="{le}"}} {count}')
    out.append(f"{full}_sum {_number(hist.sum)}")
    out.append(f"{full}_count {hist.count}")


def _buckets(out: list[str], name: str, help_: str, buckets: Iterable[tuple[float, int]],
             count: int, total: float) -> None:
    """A histogram from cumulative ``buckets`` (bound, observations at or below it) kept
    elsewhere (the pool's)."""
    full = PREFIX + name
    out.append(f"# HELP {full} {_escape(help_)}")
    out.append(f"# TYPE {full} histogram")
    for bound, n in buckets:
        out.append(f'{full}_bucket{{le="{_number(bound)}"}} {n}')
    out.append(f'{full}_bucket{{le="+Inf"}} {count}')
    out.append(f"{full}_sum {_number(total)}")
    out.append(f"{full}_count {count}")


# ---------------------------------------------------------------------- /proc
def _ppid(pid: int) -> int | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] == "Z" else int(fields[1])


def _rss_pss(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of a process in bytes ((0, 0) when it is gone or unreadable)."""
    rss = pss = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Rss:"):
                rss = int(line.split()[1]) * 1024
            elif line.startswith("Pss:"):
                pss = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return rss, pss


def descendants(root: int) -> list[int]:
    """Every live process below ``root`` (children, their children, ...)."""
    children: dict[int, list[int]] = collections.defaultdict(list)
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                ppid = _ppid(int(entry))
                if ppid is not None:
                    children[ppid].append(int(entry))
    out, todo = [], list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, ()))
    return out


def tree_memory(root: int) -> tuple[int, int, int, int, int]:
    """(RSS, PSS of ``root``; total RSS, total PSS and number of the processes below it),
    in bytes."""
    rss, pss = _rss_pss(root)
    below = descendants(root)
    totals = [_rss_pss(pid) for pid in below]
    return (rss, pss, sum(r for r, _ in totals), sum(p for _, p in totals), len(below))


# ---------------------------------------------------------------------- the endpoint
class MetricsEndpoint:
    """``GET /metrics`` on its own port (aiohttp, in the server's event loop)."""

    def __init__(self, server: GameServer, host: str, port: int) -> None:
        self.server = server
        self.host = host
        self.port = port
        self._runner: Any = None

    async def start(self) -> None:
        """Listen (OSError if the address or port cannot be used)."""
        from aiohttp import web

        from casino_tui.web.listen import listen

        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        self._runner, self.port = await listen(app, self.host, self.port)

    async def close(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def _metrics(self, request: Any) -> Any:
        from aiohttp import web

        snapshot = await self.server.metrics.snapshot(self.server)
        return web.Response(body=snapshot.exposition().encode(),
                            headers={"Content-Type": CONTENT_TYPE,
                                     "Cache-Control": "no-store"})


__all__ = [
    "CONTENT_TYPE",
    "KEY_ANSWER_LIMIT",
    "REFUSAL_REASONS",
    "Histogram",
    "MetricsEndpoint",
    "ServerMetrics",
    "Snapshot",
    "descendants",
    "tree_memory",
]
