"""Load test of ``casino-tui serve``: scripted players at once, over real SSH, on loopback.

    python -m benchmarks.load [--sessions 20] [--pace 2] [--timeout 300] [--moves N] [--json]
    python -m benchmarks.load --tables 10 [--players 2] [--pace 2] [--moves N] [--json]

It starts its own server (``casino-tui serve`` on 127.0.0.1, a free port, a temporary data
directory, no rate limit) and asyncssh clients, each with its own key and a PTY, pressing the
keys a person uses.

``--sessions N``: N players each play a whole round against the computer (title ``n``, Enter to
start; at each turn Right to look at the next card, then Enter to play the previewed move, or
``m`` and Enter to pick from the list when that card has no move), then quit with Ctrl+Q.
It prints: sessions finished, exit statuses, games saved (resumable after quitting), memory per
session (RSS and PSS of each game's process group, sampled every second; the figures at the
busiest moment), key-to-screen latency over SSH (from sending a key of the round, Right, Enter
or ``m``, to the first byte of output after it; every such key is sent while the game waits for
the player), the keys never redrawn, time to the title screen and to finish a round.

``--pace SECONDS`` plays at a person's pace: each player sends a key at most every SECONDS
(``--pace 2``: one key every two seconds), and never before the screen showed the previous
key's effect (the next screen, the move in the log; a key with no output within
``--redraw-timeout`` counts as never redrawn). Without it (``--pace 0``) keys go as fast as the
screen allows.

``--tables N --players P``: N tables of P people each play a whole round against each other at
the server's tables (:mod:`benchmarks.loadtables`: one creates the table and reads its code
from the screen, the others come with ``join CODE``, the creator starts). It prints the tables
finished, the time from one player's key press that plays a move to that move on every other
player's screen, key to one's own screen, memory per session and each round's length. The
creator presses ``t`` only once the title shows its Tables entry.

``--title-only``: each player quits as soon as the title screen is shown (logins alone: the time
from connecting to the title, its median and p95). ``--no-fork-server``: the server starts every
session as a fresh Python instead of forking it from its warm fork server (to compare the two).
``--session-nice N`` starts the server with its ``--session-nice N`` (how many nice steps its
games run below it; 0 to compare with games at the server's priority).

``--logins N --logins-after SECONDS`` (with ``--sessions``): while those players play, N more
log in at once, SECONDS after the start, and quit at their title (logins arriving while a crowd
plays: their title's median and p95 are reported apart, ``logins_title_s_*``).

The script goes by what the screen shows, read from the hand's row of cards: a move counts as
played once the hand on screen changed (one card fewer, or a new deal), never at words in the
log, which every redraw of the whole screen sends again (a dialog closed, a new deal: the old
position with "Your turn"). Right is not pressed when the hand on screen holds one card
(nothing else to look at, and the game rightly draws nothing); ``--every-right`` presses it
there too, to compare. A key never redrawn is then told apart as drawn late (its output came
after the redraw timeout), nothing to draw (Right at one card) or never drawn (lost, or
ignored by the game: ``never_drawn_by_key``). ``--unredrawn FILE`` writes each key never
redrawn (the key, its verdict, the hand then, the screen before it, when its output came
after all) as JSON lines; ``--transcripts DIR`` keeps everything a player in trouble (not
finished, or a key never redrawn) received and did, with times, for
``python -m benchmarks.loadkit replay FILE [SECONDS]`` to show their screen at any moment; a
session that does not end after its last key says so, with what its game was doing.

The tool reports its own cost and delay: the CPU of its SSH clients and scripts (per key sent)
apart from its memory sampler's (a process of its own), and how late its event loop wakes a
task that sleeps 10 ms (``loop_lag_ms_*``), the tool's own share of a key's time.
``--client-processes N`` spreads the players over N processes, each with its own event loop.

``--moves N`` stops after each player's first N moves instead of the whole round (a quick check;
the tests use it through :func:`play_sessions` and :func:`play_tables`); ``--json`` prints the
figures as JSON. Traffic goes only to 127.0.0.1, and everything stops after --timeout seconds at
the latest. This is a measuring tool, not a test: it does not fail on slowness.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import math
import os
import platform
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from casino_tui.serve.players import PlayerDirs, has_saved_game
from casino_tui.table import trace

from .loadkit import (
    HAND_ROW,
    HOST,
    KEY_ENTER,
    KEY_QUIT,
    KEY_RIGHT,
    MOVE_LIST,
    NO_MOVE,
    ROUND_OVER,
    TITLE,
    YOUR_TURN,
    Keyboard,
    LoopbackServer,
    LoopLag,
    MemoryPeak,
    Screen,
    Transcript,
    Unredrawn,
    cards_shown,
    key_name,
    moved,
    open_terminal,
    percentile,
    process_report,
    right_changes_something,
    session_pid_of,
)
from .loadtables import Table, TableResult

SETUP = "Preset"
TABLE = "Your hand"
SOUTH_MOVED = moved("South")

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
    latencies: list[float] = field(default_factory=list)  # the round's keys to the screen
    no_redraw: int = 0  # keys of the round with no output after them (--redraw-timeout)
    unredrawn: list[Unredrawn] = field(default_factory=list)  # those keys, and their screens
    keys_sent: list[float] = field(default_factory=list)  # when each key went (monotonic)
    measured_at: list[float] = field(default_factory=list)  # when each key of latencies went
    # which key each of latencies was (Right, Enter, m; last_play: the round's last of them)
    measured_keys: list[str] = field(default_factory=list)
    started_at: float = 0.0  # when it connected (monotonic)
    saved: bool | None = None
    # a session that did not end after its last key: what its game was doing (process_report)
    game_process: dict[str, Any] = field(default_factory=dict)


async def play_one(number: int, port: int, key: Any, size: tuple[int, int],
                   data_dir: Path, step_timeout: float, moves: int = 0, pace: float = 0.0,
                   rng: random.Random | None = None, redraw_timeout: float = 5.0,
                   title_only: bool = False, every_right: bool = False,
                   transcripts: Path | None = None) -> Result:
    """One scripted player; ``transcripts``: a directory that gets the player's transcript
    (:class:`Transcript`, ``loadN.jsonl``) if it did not finish or a key of it was never
    redrawn."""
    import asyncssh

    res = Result(number, fingerprint=key.get_fingerprint())
    screen = Screen(Transcript() if transcripts is not None else None)
    t0 = res.started_at = time.monotonic()
    try:
        async with asyncssh.connect(HOST, port, username=f"load{number}", client_keys=[key],
                                    known_hosts=None, agent_path=None,
                                    preferred_auth="publickey") as conn:
            res.connect_s = time.monotonic() - t0
            chan = await open_terminal(conn, screen, size)
            keys = Keyboard(chan.write, screen, pace, rng, redraw_timeout,
                            late_timeout=step_timeout)
            await _script(keys, screen, res, t0, step_timeout, moves, title_only, every_right)
            try:
                await asyncio.wait_for(chan.wait_closed(), step_timeout)
            except TimeoutError:
                # what the game was doing then (alive? each thread's wait), for the transcript
                pid = session_pid_of(data_dir.parent / "server.log", f"load{number}")
                res.game_process = process_report(pid) if pid is not None else {}
                raise TimeoutError(f"the session did not end within {step_timeout:g}s of "
                                   f"the last key ({key_name(keys.last_key)})") from None
            res.exit_status = chan.get_exit_status()
            # the game is closed now (an open one counts as "in use"): can it be continued?
            dirs = PlayerDirs.for_fingerprint(data_dir, res.fingerprint)
            if not title_only:  # quitting at the title saves nothing
                res.saved = await asyncio.to_thread(has_saved_game, dirs.data)
            res.finished = res.exit_status == 0 and (
                title_only or res.round_over or (moves > 0 and res.turns >= moves))
    except (OSError, asyncssh.Error, TimeoutError, EOFError) as err:
        res.error = f"{type(err).__name__}: {err}"
    if screen.transcript is not None and transcripts is not None and (
            not res.finished or res.unredrawn):
        screen.transcript.write(transcripts / f"load{number}.jsonl", {
            "player": f"load{number}", "fingerprint": res.fingerprint, "size": list(size),
            "error": res.error, "exit_status": res.exit_status, "finished": res.finished,
            "unredrawn": [u.key for u in res.unredrawn], "game_process": res.game_process})
    return res


async def _script(keys: Keyboard, screen: Screen, res: Result, t0: float, step: float,
                  moves: int, title_only: bool = False, every_right: bool = False) -> None:
    """Play until the round is over, or ``moves`` moves of the player (0: no limit): each key
    waits for the one before to show its effect; with ``title_only``, quit at the title.
    Right is skipped when the hand on screen holds one card (it changes nothing), unless
    ``every_right``.

    The script goes by what the screen shows now, not by words that pass by: the game redraws
    the whole screen at times (a dialog closed, a new deal), and every redraw sends the log's
    old lines and "Your turn" again. So a move counts as played when the hand on screen has
    changed (:data:`HAND_ROW`: one card fewer, or a new deal), not at a "South trailed" in the
    log, which a redraw of the old position also shows."""
    try:
        await screen.wait(TITLE, timeout=step)
        res.title_s = time.monotonic() - t0
        if title_only:
            await keys.press(b"q", settle=0.1)
            return
        await keys.press(b"n")
        await screen.wait(SETUP, timeout=step)
        await keys.press(KEY_ENTER)
        await screen.wait(TABLE, timeout=step)
        started = time.monotonic()
        played = 0  # the player's moves seen
        hand: int | None = None  # the cards in the hand on screen (None: not seen)
        read_from = 0  # the hand is read again in the text received after this
        while True:
            if await screen.wait(ROUND_OVER, YOUR_TURN, timeout=step) == 0:
                res.round_over = True
                keys.relabel_last("last_play")
                break
            res.turns += 1
            await screen.quiet(0.15)  # the turn's frame, whole
            row = screen.last_match(HAND_ROW, read_from)
            if row is not None:
                hand = cards_shown(row)
            read_from = screen.received
            keys.hand = hand
            # (the hand not seen: its size from the moves seen)
            right = right_changes_something(played + 1) if hand is None else hand > 1
            if every_right or right:
                # Right: the hand, the preview and the move line are redrawn (with one card,
                # nothing: --every-right)
                await keys.press(KEY_RIGHT, settle=0.15, measure=True, drawn=right)
                await keys.press(KEY_ENTER, settle=0.05, measure=True)
            else:  # one card: Right would change nothing
                await keys.press(KEY_ENTER, settle=0.15, measure=True)
            # the move is drawn; after the round's last card the summary may cover the hand
            seen, hand = await _move_shown(screen, hand, step)
            if seen == 2:
                res.move_list_used += 1
                await keys.press(b"m", measure=True)
                await screen.wait(MOVE_LIST, timeout=step)
                await keys.press(KEY_ENTER, measure=True)
                seen, hand = await _move_shown(screen, hand, step, no_move=False)
            read_from = screen.dropped + screen.mark_at
            played += 1
            if seen == 0:
                res.round_over = True
                keys.relabel_last("last_play")
                break
            if moves and res.turns >= moves:
                break
        res.round_s = time.monotonic() - started
        await keys.press(KEY_QUIT, settle=0.2)
    finally:
        keys.finish()
        res.latencies, res.no_redraw = keys.latencies, keys.no_redraw
        res.unredrawn = keys.unredrawn
        res.keys_sent = keys.sent_at
        res.measured_at = keys.measured_at
        res.measured_keys = keys.measured_keys


async def _move_shown(screen: Screen, hand: int | None, step: float,
                      no_move: bool = True) -> tuple[int, int | None]:
    """Until the player's move is on the screen: 0 the round is over, 1 the move was drawn,
    2 the game said there is no move to play (only with ``no_move``); with the cards now in
    the hand on screen. ``hand``: the cards in it before the move (None: not seen; then the
    player's name in the log, which a redraw may show again, has to do)."""
    if hand is None:
        patterns: list[str | re.Pattern[str]] = [ROUND_OVER, SOUTH_MOVED]
    else:
        patterns = [ROUND_OVER, HAND_ROW]
    if no_move:
        patterns.append(NO_MOVE)
    deadline = time.monotonic() + step
    while True:
        seen, text = await screen.next_match(*patterns,
                                             timeout=max(0.0, deadline - time.monotonic()))
        if seen != 1 or hand is None:
            return seen, hand
        now = cards_shown(text)
        if now != hand:  # one card fewer, or a new deal: the move
            return seen, now
        # the hand as it was: the position before the move drawn again


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
    pace: float = 0.0
    load_before: tuple[float, float, float] = (0.0, 0.0, 0.0)
    load_after: tuple[float, float, float] = (0.0, 0.0, 0.0)
    redraw_timeout: float = 5.0
    client_cpu: float = 0.0  # this process's CPU seconds (the scripted players, SSH clients)
    sampler_cpu: float | None = None  # the memory sampler's CPU seconds (its own process)
    loop_lag: list[float] = field(default_factory=list)  # the clients' event loop's delays
    logins: list[Result] = field(default_factory=list)  # --logins: quit at their title
    forked_cpu: float | None = None  # the CPU of every forked game that ended

    @property
    def ok(self) -> bool:
        """Every session played to the end, quit with status 0 and left a game to continue,
        every extra login reached its title, and no game outlived the server."""
        return (len(self.results) == self.sessions and not self.leftovers
                and all(r.finished and r.saved is not False for r in self.results)
                and all(r.finished for r in self.logins))


async def play_sessions(sessions: int, *, timeout: float = 300.0,
                        size: tuple[int, int] = (100, 30), step_timeout: float = 60.0,
                        stagger: float = 0.0, moves: int = 0, pace: float = 0.0,
                        seed: int = 1, redraw_timeout: float = 5.0,
                        work: Path | None = None, title_only: bool = False,
                        fork_server: bool = True, store: str | None = None,
                        session_nice: int | None = None, every_right: bool = False,
                        client_processes: int = 1, logins: int = 0,
                        logins_after: float = 0.0,
                        transcripts: Path | None = None) -> LoadRun:
    """Start a server on 127.0.0.1 and ``sessions`` scripted players (a key every ``pace``
    seconds at most; ``seed``: when each starts within its first pace; ``title_only``: each
    quits at the title; ``fork_server``: False starts every session as a fresh Python;
    ``session_nice``: the server's ``--session-nice``; ``logins`` more players log in at once
    ``logins_after`` seconds after the start and quit at their title, from this process);
    stop it; measure. ``client_processes`` above 1 spreads the players over that many
    processes, each with its own event loop (:mod:`benchmarks.loadclients`); their CPU and loop
    lag are added up. ``transcripts``: a directory for the transcript of each player that did
    not finish or had a key never redrawn (:class:`Transcript`).

    ``work`` (default: a new temporary directory) gets the server's data and log."""
    if work is None:
        work = Path(tempfile.mkdtemp(prefix="casino-tui-load-"))
    server = LoopbackServer(work, sessions + logins, fork_server=fork_server, store=store,
                            session_nice=session_nice)
    load_before = os.getloadavg()
    started = time.monotonic()
    cpu_before = time.process_time()
    results: list[Result] = []
    late: list[Result] = []
    rng = random.Random(seed)
    seeds = [rng.random() for _ in range(sessions)]
    lag = LoopLag()
    lags: list[float] = []
    workers_cpu = 0.0
    try:
        port = await server.start()
        group = Group(port, str(server.data_dir), size, step_timeout, stagger, moves, pace,
                      redraw_timeout, title_only, every_right, time.monotonic() + timeout,
                      str(transcripts.resolve()) if transcripts is not None else None)
        numbers = list(range(1, sessions + 1))

        async def players() -> list[Result]:
            nonlocal workers_cpu
            if client_processes <= 1:
                lag.start()
                return await play_group(group, numbers, seeds)
            parts = [numbers[k::client_processes] for k in range(client_processes)]
            done = await asyncio.gather(*(
                _group_in_process(group, part, [seeds[n - 1] for n in part])
                for part in parts if part))
            found: list[Result] = []
            for part_results, part_lag, cpu in done:
                found += part_results
                lags.extend(part_lag)
                workers_cpu += cpu
            return sorted(found, key=lambda r: r.number)

        async def late_logins() -> list[Result]:
            if not logins:
                return []
            await asyncio.sleep(logins_after)
            at_title = dataclasses.replace(group, stagger=0.0, moves=0, pace=0.0,
                                           title_only=True, every_right=False)
            return await play_group(at_title, range(sessions + 1, sessions + logins + 1),
                                    [0.0] * logins)

        results, late = await asyncio.gather(players(), late_logins())
    finally:
        await lag.stop()
        await server.stop()
    elapsed = time.monotonic() - started
    return LoadRun(sessions, size, results, server.peak, elapsed, server.cpu,
                   server.leftovers, work, pace, load_before, os.getloadavg(), redraw_timeout,
                   time.process_time() - cpu_before + workers_cpu, server.sampler_cpu,
                   lag.samples + lags, late, server.forked_cpu)


@dataclass
class Group:
    """What every scripted player of a run shares (:func:`play_group`), as JSON for a
    process of clients: ``deadline`` is a ``time.monotonic()`` (the same clock in every
    process of the machine)."""

    port: int
    data_dir: str
    size: tuple[int, int]
    step_timeout: float
    stagger: float
    moves: int
    pace: float
    redraw_timeout: float
    title_only: bool
    every_right: bool
    deadline: float
    transcripts: str | None = None  # a directory for the transcripts of players in trouble


async def play_group(group: Group, numbers: Sequence[int], seeds: Sequence[float]) -> list[Result]:
    """The players numbered ``numbers`` (from 1; ``seeds``: each one's random start within
    its first pace), at once in this event loop, until they are done or the deadline."""
    import asyncssh

    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in numbers]
    size = (group.size[0], group.size[1])

    async def staggered(k: int, number: int) -> Result:
        await asyncio.sleep((number - 1) * group.stagger)
        return await play_one(number, group.port, keys[k], size, Path(group.data_dir),
                              group.step_timeout, group.moves, group.pace,
                              random.Random(seeds[k]), group.redraw_timeout, group.title_only,
                              group.every_right,
                              Path(group.transcripts) if group.transcripts else None)

    tasks = [asyncio.create_task(staggered(k, n)) for k, n in enumerate(numbers)]
    done, pending = await asyncio.wait(tasks, timeout=max(0.0, group.deadline -
                                                          time.monotonic()))
    for t in pending:
        t.cancel()
    results = []
    for number, t in zip(numbers, tasks, strict=True):
        if t in done and not t.cancelled() and t.exception() is None:
            results.append(t.result())
        else:
            results.append(Result(number, error="did not finish within --timeout"))
    return results


async def _group_in_process(group: Group, numbers: list[int],
                            seeds: list[float]) -> tuple[list[Result], list[float], float]:
    """:func:`play_group` in a process of its own (``python -m benchmarks.loadclients``):
    its results, its event loop's lag and its CPU seconds."""
    home = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, (home, os.environ.get("PYTHONPATH"))))}
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "benchmarks.loadclients", stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, env=env, cwd=home)
    spec = json.dumps({"group": dataclasses.asdict(group), "numbers": numbers,
                       "seeds": seeds}).encode()
    try:
        out, _ = await asyncio.wait_for(child.communicate(spec),
                                        group.deadline - time.monotonic() + 60)
        found = json.loads(out)
    except (TimeoutError, ValueError) as err:
        with contextlib.suppress(ProcessLookupError):
            child.kill()
        await child.wait()
        why = f"its process of clients failed ({type(err).__name__})"
        return [Result(n, error=why) for n in numbers], [], 0.0
    results = [Result(**{**r, "unredrawn": [Unredrawn(**u) for u in r["unredrawn"]]})
               for r in found["results"]]
    return results, found["lag"], found["cpu"]


# ---------------------------------------------------------------------- tables
@dataclass
class TablesRun:
    """What :func:`play_tables` measured."""

    tables: int
    players: int
    size: tuple[int, int]
    moves: int
    results: list[TableResult]
    peak: MemoryPeak
    elapsed: float
    server_cpu: float | None
    leftovers: int
    work: Path
    load_before: tuple[float, float, float] = (0.0, 0.0, 0.0)
    load_after: tuple[float, float, float] = (0.0, 0.0, 0.0)
    client_cpu: float = 0.0  # this process's CPU seconds (the scripted players, SSH clients)
    pace: float = 0.0
    sampler_cpu: float | None = None  # the memory sampler's CPU seconds (its own process)
    loop_lag: list[float] = field(default_factory=list)  # the clients' event loop's delays

    @property
    def finished(self) -> int:
        return sum(r.finished for r in self.results)

    @property
    def ok(self) -> bool:
        """Every table played to the end, everyone quit with status 0, and no game outlived
        the server."""
        return self.finished == self.tables and not self.leftovers

    def figures(self) -> dict[str, Any]:
        """The figures, as ``--json`` prints them (times in ms or s, memory in MiB)."""
        lat = [x for r in self.results for x in r.latencies]
        own = [x for r in self.results for p in r.players for x in p.own_latencies]
        done = [r for r in self.results if r.finished]
        rounds = [r.round_s for r in done]
        seated = [r.seated_s for r in done]
        rss = [v[0] / 1024 for v in self.peak.sessions.values()]
        return {
            "tables": self.tables,
            "players": self.players,
            "pace_s": self.pace,
            "terminal": f"{self.size[0]}x{self.size[1]}",
            "moves_per_player": self.moves or None,
            "tables_finished": self.finished,
            "move_to_other_screen_ms_p50": _ms(percentile(lat, 0.5) if lat else None),
            "move_to_other_screen_ms_p95": _ms(percentile(lat, 0.95) if lat else None),
            "move_to_other_screen_ms_p99": _ms(percentile(lat, 0.99) if lat else None),
            "move_to_other_screen_ms_max": _ms(max(lat) if lat else None),
            "move_to_other_screen_samples": len(lat),
            "moves_not_seen_by_others": sum(r.missed for r in self.results),
            "key_to_own_screen_ms_p50": _ms(percentile(own, 0.5) if own else None),
            "key_to_own_screen_ms_p95": _ms(percentile(own, 0.95) if own else None),
            "moves_without_redraw": sum(p.no_redraw for r in self.results for p in r.players),
            **unredrawn_figures([u for r in self.results for p in r.players
                                 for u in p.unredrawn]),
            **memory_figures(self.peak),
            "rss_mib_per_player": _round(statistics.mean(rss) if rss else None),
            "server_cpu_s": _round(self.server_cpu),
            "games_cpu_s": _round(sum(self.peak.cpu.values())),
            **tool_figures(self.client_cpu, self.sampler_cpu, self.loop_lag,
                           sum(len(p.keys_sent) for r in self.results for p in r.players)),
            "seated_s_median": _round(statistics.median(seated) if seated else None, 2),
            "round_s_median": _round(statistics.median(rounds) if rounds else None, 2),
            "round_s_max": _round(max(rounds) if rounds else None, 2),
            "round_s": [_round(r.round_s, 2) for r in self.results],
            "moves_played": sum(p.moves for r in self.results for p in r.players),
            "move_list_used": sum(p.move_list_used for r in self.results for p in r.players),
            "elapsed_s": _round(self.elapsed, 1),
            "load_average_before": list(self.load_before),
            "load_average_after": list(self.load_after),
            "leftover_games": self.leftovers,
            "errors": [f"table {r.number}: {r.error or _why_not(r)}"
                       for r in self.results if not r.finished],
        }


def _why_not(r: TableResult) -> str:
    return "; ".join(f"{p.name}: exit status {p.exit_status}, {p.moves} moves"
                     f"{', round over' if p.round_over else ''}" for p in r.players)


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None or math.isnan(seconds) else round(seconds * 1000, 1)


def _round(value: float | None, digits: int = 1) -> float | None:
    return None if value is None or math.isnan(value) else round(value, digits)


async def play_tables(tables: int, players: int = 2, *, timeout: float = 300.0,
                      size: tuple[int, int] = (100, 30), step_timeout: float = 60.0,
                      moves: int = 0, pace: float = 0.0, seed: int = 1,
                      work: Path | None = None,
                      session_nice: int | None = None,
                      every_right: bool = False) -> TablesRun:
    """Start a server on 127.0.0.1; at ``tables`` tables at once, ``players`` scripted people
    each play a round (or their first ``moves`` moves) against each other; stop it; measure.

    ``work`` (default: a new temporary directory) gets the server's data and log."""
    import asyncssh

    if work is None:
        work = Path(tempfile.mkdtemp(prefix="casino-tui-load-"))
    server = LoopbackServer(work, tables * players, session_nice=session_nice)
    load_before = os.getloadavg()
    started = time.monotonic()
    cpu_before = time.process_time()
    results: list[TableResult] = []
    rng = random.Random(seed)
    lag = LoopLag()
    try:
        port = await server.start()
        lag.start()
        scripts = [Table(i + 1, port, [asyncssh.generate_private_key("ssh-ed25519")
                                       for _ in range(players)], size, step_timeout, moves, work,
                         pace=pace, rng=random.Random(rng.random()), every_right=every_right)
                   for i in range(tables)]
        tasks = [asyncio.create_task(t.play()) for t in scripts]
        done, pending = await asyncio.wait(tasks, timeout=timeout)
        for t in pending:
            t.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for script, t in zip(scripts, tasks, strict=True):
            if t in done and not t.cancelled() and t.exception() is None:
                results.append(t.result())
            else:
                script.result.error = "did not finish within --timeout"
                results.append(script.result)
    finally:
        await lag.stop()
        await server.stop()
    elapsed = time.monotonic() - started
    return TablesRun(tables, players, size, moves, results, server.peak, elapsed, server.cpu,
                     server.leftovers, work, load_before, os.getloadavg(),
                     time.process_time() - cpu_before, pace, server.sampler_cpu, lag.samples)


def report_tables(run: TablesRun) -> None:
    f = run.figures()
    what = f"their first {run.moves} moves (or a whole round)" if run.moves else "a whole round"
    print(f"\n{f['tables_finished']}/{run.tables} tables of {run.players} people played "
          f"{what} over SSH and quit with status 0 ({run.elapsed:.1f} s in all; terminal "
          f"{f['terminal']}; load average {run.load_before[0]:.2f} before, "
          f"{run.load_after[0]:.2f} after)")
    for err in f["errors"]:
        print(f"  NOT finished: {err}")
    if f["move_to_other_screen_samples"]:
        print(f"a move, from the key press to the other players' screens "
              f"({f['move_to_other_screen_samples']} times): median "
              f"{f['move_to_other_screen_ms_p50']} ms, p95 "
              f"{f['move_to_other_screen_ms_p95']} ms, p99 {f['move_to_other_screen_ms_p99']} "
              f"ms, max {f['move_to_other_screen_ms_max']} ms")
    if f["moves_not_seen_by_others"]:
        print(f"  ({f['moves_not_seen_by_others']} moves not seen on another screen in time)")
    if f["key_to_own_screen_ms_p50"] is not None:
        print(f"key to one's own screen (Right): median {f['key_to_own_screen_ms_p50']} ms, "
              f"p95 {f['key_to_own_screen_ms_p95']} ms; keys never redrawn: "
              f"{f['moves_without_redraw']}")
    if f["pss_mib_per_player"] is not None:
        print(f"memory per player at the busiest moment ({f['players_at_peak']} games): PSS "
              f"mean {f['pss_mib_per_player']} MiB (max {f['pss_mib_per_player_max']}) in "
              f"{f['processes_per_player']} processes, RSS mean {f['rss_mib_per_player']} MiB; "
              f"everything below the server {f['tree_pss_mib']} MiB PSS in "
              f"{f['tree_processes']} processes; server process (SSH, PTYs, the table hub) "
              f"RSS {f['server_rss_mib']} MiB, PSS {f['server_pss_mib']} MiB")
    if f["round_s_median"] is not None:
        print(f"everyone seated in {f['seated_s_median']} s (median); "
              f"{'the moves' if run.moves else 'a round'}: median {f['round_s_median']} s, max "
              f"{f['round_s_max']} s; {f['moves_played']} moves played, the move list used "
              f"{f['move_list_used']} times")


# ---------------------------------------------------------------------- the command
def memory_figures(peak: MemoryPeak) -> dict[str, Any]:
    """Memory and processes at the busiest moment, per player and in all."""
    games = peak.sessions
    pss = [v[1] / 1024 for v in games.values()]
    procs = [v[2] for v in games.values()]
    return {
        "players_at_peak": len(games),
        # each game's process group (the app, and what it started itself)
        "pss_mib_per_player": _round(statistics.mean(pss) if pss else None),
        "pss_mib_per_player_max": _round(max(pss) if pss else None),
        # each game's PSS in the order they started (their pids'): at tables, the creators
        # connect first, the players who join by code after them
        "pss_mib_by_start": [_round(games[pid][1] / 1024) for pid in sorted(games)],
        "processes_per_player": _round(statistics.mean(procs) if procs else None, 2),
        # every process below the server (games, shared workers, forks), per player
        "tree_processes": peak.tree_processes,
        "tree_pss_mib": _round(peak.tree_pss / 1024),
        "tree_pss_mib_per_player": _round(peak.tree_pss / 1024 / len(games) if games else None),
        "tree_processes_per_player": _round(peak.tree_processes / len(games) if games else None,
                                            2),
        "server_rss_mib": _round(peak.server_rss / 1024),
        "server_pss_mib": _round(peak.server_pss / 1024),
    }


def tool_figures(clients_cpu: float, sampler_cpu: float | None, lag: Sequence[float],
                 keys: int) -> dict[str, Any]:
    """What the load tool itself cost and how late its event loop ran: the CPU of its SSH
    clients and scripts (``clients_cpu_s``, per key sent) and of its memory sampler (a process
    of its own), and how late a task sleeping 10 ms woke (``loop_lag_ms_*``): a key sent or
    bytes read that much after their time, behind other clients' work."""
    return {
        # the interpreter the server and its games ran on (the server is started with this
        # tool's own): its build weighs on the games' CPU (docs/SERVE.md)
        "python": f"{platform.python_version()} ({sys.executable})",
        "load_tool_cpu_s": _round(clients_cpu + (sampler_cpu or 0.0)),
        "clients_cpu_s": _round(clients_cpu),
        "clients_cpu_ms_per_key": _round(clients_cpu / keys * 1000 if keys else None, 2),
        "sampler_cpu_s": _round(sampler_cpu),
        "loop_lag_ms_p50": _ms(percentile(lag, 0.5) if lag else None),
        "loop_lag_ms_p95": _ms(percentile(lag, 0.95) if lag else None),
        "loop_lag_ms_p99": _ms(percentile(lag, 0.99) if lag else None),
        "loop_lag_ms_max": _ms(max(lag) if lag else None),
        "loop_lag_samples": len(lag),
    }


def unredrawn_figures(missed: Sequence[Unredrawn]) -> dict[str, Any]:
    """The keys never redrawn (no output within the redraw timeout): how many of each key,
    and what became of them (:attr:`Unredrawn.verdict`): drawn after all (after the redraw
    timeout, before the player's next key), rightly nothing to draw (Right with one card in
    the hand on screen), or never drawn at all (lost, or ignored by the game)."""
    by_key: dict[str, int] = {}
    lost: dict[str, int] = {}
    for miss in missed:
        by_key[miss.key] = by_key.get(miss.key, 0) + 1
        if miss.verdict == "never drawn":
            lost[miss.key] = lost.get(miss.key, 0) + 1
    later = [m.later_s for m in missed if m.later_s is not None]
    return {
        "never_redrawn_by_key": by_key,
        "never_redrawn_drawn_later": len(later),
        "never_redrawn_later_s_max": _round(max(later) if later else None, 2),
        "never_redrawn_nothing_to_draw": sum(m.verdict == "nothing to draw" for m in missed),
        "never_drawn_by_key": lost,
    }


def run_start(done: LoadRun) -> float:
    """When a ``--sessions`` run began (its first connection, on the monotonic clock): the
    zero of its keys' times."""
    return min((r.started_at for r in done.results), default=0.0)


def timeline(done: LoadRun, bucket: float = 10.0) -> list[dict[str, Any]]:
    """Key-to-screen latency by when the key went: ``bucket``-second windows from the first
    connection, each with its keys' count, median and p95 (where in the run the slow keys are:
    the crowd's logins at the start, or all along)."""
    start = run_start(done)
    windows: dict[int, list[float]] = {}
    for r in done.results:
        for at, latency in zip(r.measured_at, r.latencies, strict=False):
            windows.setdefault(int((at - start) // bucket), []).append(latency)
    return [{"from_s": k * bucket, "samples": len(v), "p50_ms": _ms(percentile(v, 0.5)),
             "p95_ms": _ms(percentile(v, 0.95)), "over_250_ms": sum(x > 0.25 for x in v)}
            for k, v in sorted(windows.items())]


def latency_by_key(done: LoadRun, over: float = 0.25) -> dict[str, dict[str, Any]]:
    """Key-to-screen latency by key (Right, Enter, m; ``last_play``: the player's last play
    of the round, which ends it when the player plays last), each with its count, median,
    p95 and how many took longer than ``over`` seconds (which keys spend the 5% a p95
    allows)."""
    keys: dict[str, list[float]] = {}
    for r in done.results:
        for name, latency in zip(r.measured_keys, r.latencies, strict=False):
            keys.setdefault(name, []).append(latency)
    return {name: {"samples": len(v), "p50_ms": _ms(percentile(v, 0.5)),
                   "p95_ms": _ms(percentile(v, 0.95)), f"over_{over * 1000:g}_ms":
                   sum(x > over for x in v)} for name, v in sorted(keys.items())}


def session_figures(done: LoadRun, moves: int) -> dict[str, Any]:
    """The figures of a ``--sessions`` run, as ``--json`` prints them (times in ms or s)."""
    lat = [x for r in done.results for x in r.latencies]
    finished = [r for r in done.results if r.finished]
    titles = [r.title_s for r in done.results if r.title_s]
    rounds = [r.round_s for r in finished]
    late = [r.title_s for r in done.logins if r.title_s]
    # the players' keys sent while the --logins logged in (from the first one's connection to
    # the last one's title), and the others
    during: list[float] = []
    outside: list[float] = []
    if late:
        begin = min(r.started_at for r in done.logins)
        end = max(r.started_at + r.title_s for r in done.logins if r.title_s)
        for r in done.results:
            for at, latency in zip(r.measured_at, r.latencies, strict=False):
                (during if begin <= at <= end else outside).append(latency)
    return {
        "sessions": done.sessions,
        "pace_s": done.pace,
        "terminal": f"{done.size[0]}x{done.size[1]}",
        "moves_per_player": moves or None,
        "sessions_finished": len(finished),
        "rounds_finished": sum(r.round_over and r.exit_status == 0 for r in done.results),
        "saved": sum(bool(r.saved) for r in done.results),
        "key_to_screen_ms_p50": _ms(percentile(lat, 0.5) if lat else None),
        "key_to_screen_ms_p95": _ms(percentile(lat, 0.95) if lat else None),
        "key_to_screen_ms_p99": _ms(percentile(lat, 0.99) if lat else None),
        "key_to_screen_ms_max": _ms(max(lat) if lat else None),
        "key_to_screen_samples": len(lat),
        "key_to_screen_timeline": timeline(done),
        "key_to_screen_by_key": latency_by_key(done),
        "moves_without_redraw": sum(r.no_redraw for r in done.results),
        "title_after_connect_s_median": _round(statistics.median(titles) if titles else None,
                                               2),
        "title_after_connect_s_p95": _round(percentile(titles, 0.95) if titles else None, 2),
        "title_after_connect_s_max": _round(max(titles) if titles else None, 2),
        # --logins: logins arriving while the others play
        "logins": len(done.logins),
        "logins_finished": sum(r.finished for r in done.logins),
        "logins_title_s_median": _round(statistics.median(late) if late else None, 2),
        "logins_title_s_p95": _round(percentile(late, 0.95) if late else None, 2),
        "logins_title_s_max": _round(max(late) if late else None, 2),
        "key_to_screen_ms_p50_during_logins": _ms(percentile(during, 0.5) if during else None),
        "key_to_screen_ms_p95_during_logins": _ms(percentile(during, 0.95) if during else None),
        "key_to_screen_samples_during_logins": len(during),
        "key_to_screen_ms_p50_other": _ms(percentile(outside, 0.5) if outside else None),
        "key_to_screen_ms_p95_other": _ms(percentile(outside, 0.95) if outside else None),
        **memory_figures(done.peak),
        "fork_server_pss_mib": _round(done.peak.forker_pss / 1024 if done.peak.forker_pss
                                      else None),
        "round_s_median": _round(statistics.median(rounds) if rounds else None, 2),
        "elapsed_s": _round(done.elapsed, 1),
        "server_cpu_s": _round(done.server_cpu),
        # every game's process group, as last sampled (a game shorter than the sampling's
        # second may be missed), and this process (the scripted players and SSH clients)
        "games_cpu_s": _round(sum(done.peak.cpu.values())),
        # every forked game that ended before the server stopped, from the fork server's count
        "forked_games_cpu_s": _round(done.forked_cpu, 2),
        **tool_figures(done.client_cpu, done.sampler_cpu, done.loop_lag,
                       sum(len(r.keys_sent) for r in done.results)),
        **unredrawn_figures([u for r in done.results for u in r.unredrawn]),
        "load_average_before": list(done.load_before),
        "load_average_after": list(done.load_after),
        "leftover_games": done.leftovers,
        "errors": [f"session {r.number}: {r.error or f'exit status {r.exit_status}'}"
                   for r in [*done.results, *done.logins] if not r.finished],
    }


async def run(args: argparse.Namespace, size: tuple[int, int]) -> int:
    work: Path
    if args.tables:
        tables = await play_tables(args.tables, args.players, timeout=args.timeout, size=size,
                                   step_timeout=args.step_timeout, moves=args.moves,
                                   pace=args.pace, seed=args.seed,
                                   session_nice=args.session_nice,
                                   every_right=args.every_right)
        work, ok = tables.work, tables.ok
        if args.unredrawn:
            write_unredrawn(args.unredrawn, [(p.name, p.unredrawn) for r in tables.results
                                             for p in r.players])
        if args.json:
            print(json.dumps({**tables.figures(), "session_nice": args.session_nice,
                              "computer_players": pool_summary(work)}, indent=2))
        else:
            report_tables(tables)
            _cpu_line(tables.server_cpu, tables.elapsed, tables.leftovers)
    else:
        done = await play_sessions(args.sessions, timeout=args.timeout, size=size,
                                   step_timeout=args.step_timeout, stagger=args.stagger,
                                   moves=args.moves, pace=args.pace, seed=args.seed,
                                   redraw_timeout=args.redraw_timeout,
                                   title_only=args.title_only, fork_server=args.fork_server,
                                   store=args.store, session_nice=args.session_nice,
                                   every_right=args.every_right,
                                   client_processes=args.client_processes,
                                   logins=args.logins, logins_after=args.logins_after,
                                   transcripts=args.transcripts)
        work, ok = done.work, done.ok
        if args.unredrawn:
            write_unredrawn(args.unredrawn, [(f"load{r.number}", r.unredrawn)
                                             for r in done.results])
        if args.samples:
            write_samples(args.samples, done)
        if args.json:
            print(json.dumps({**session_figures(done, args.moves),
                              "client_processes": args.client_processes,
                              "session_nice": args.session_nice,
                              "computer_players": pool_summary(work)}, indent=2))
        else:
            report(done, args.moves)
            _cpu_line(done.server_cpu, done.elapsed, done.leftovers)
    if args.keep:
        print(f"kept {work} (server log: {work / 'server.log'})", file=sys.stderr)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


def write_unredrawn(path: Path, players: Sequence[tuple[str, Sequence[Unredrawn]]]) -> None:
    """Each key never redrawn, a JSON line each (``--unredrawn FILE``)."""
    with path.open("w") as out:
        for name, missed in players:
            for m in missed:
                out.write(json.dumps({"player": name, "key": m.key, "verdict": m.verdict,
                                      "later_s": m.later_s, "hand": m.hand,
                                      "before": m.before}) + "\n")


def write_samples(path: Path, done: LoadRun) -> None:
    """Each measured key of a ``--sessions`` run, a JSON line each (``--samples FILE``), in
    the order they went: to see which keys of which players were slow, and when (``mono``: the
    system's monotonic clock, which the server's and games' own records share)."""
    start = run_start(done)
    rows = [(at, f"load{r.number}", n, name, latency) for r in done.results
            for n, (at, name, latency) in enumerate(zip(r.measured_at, r.measured_keys,
                                                          r.latencies, strict=False))]
    with path.open("w") as out:
        for at, player, n, name, latency in sorted(rows):
            out.write(json.dumps({"player": player, "key": name, "n": n,
                                  "at_s": round(at - start, 4), "mono": round(at, 4),
                                  "ms": round(latency * 1000, 2)}) + "\n")


def pool_summary(work: Path) -> str | None:
    """The server's last word on its pool of computer players (requests answered, their wait,
    late answers, moves out of time), from its log when it stopped."""
    try:
        text = (work / "server.log").read_text(errors="replace")
    except OSError:
        return None
    lines = re.findall(r"computer players: (\d+ answered .*)", text)
    return lines[-1] if lines else None


def _cpu_line(cpu: float | None, elapsed: float, leftovers: int) -> None:
    if cpu is not None:
        print(f"server process (SSH, PTY copying, tables): {cpu:.1f} s of CPU in "
              f"{elapsed:.0f} s ({cpu / elapsed * 100:.0f}% of one core)")
    if leftovers:
        print(f"WARNING: {leftovers} game process group(s) still running")


def report(done: LoadRun, moves: int = 0) -> None:
    f = session_figures(done, moves)
    results = done.results
    finished = [r for r in results if r.finished]
    played = f"played {moves} moves (or a whole round)" if moves else "played a whole round"
    pace = f"a key every {done.pace:g} s at most" if done.pace else "keys as fast as drawn"
    print(f"\n{len(finished)}/{done.sessions} sessions {played} and quit with status 0 "
          f"({done.elapsed:.1f} s in all; {pace}; terminal {f['terminal']}; load average "
          f"{done.load_before[0]:.2f} before, {done.load_after[0]:.2f} after)")
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
    if f["key_to_screen_samples"]:
        print(f"key-to-screen latency over SSH ({f['key_to_screen_samples']} key presses of "
              f"the rounds): median {f['key_to_screen_ms_p50']} ms, p95 "
              f"{f['key_to_screen_ms_p95']} ms, p99 {f['key_to_screen_ms_p99']} ms, max "
              f"{f['key_to_screen_ms_max']} ms")
    print(f"key presses never redrawn (no output within {done.redraw_timeout:g} s): "
          f"{f['moves_without_redraw']}"
          + (f" ({f['never_redrawn_drawn_later']} drawn later, "
             f"{f['never_redrawn_nothing_to_draw']} with nothing to draw, "
             f"{sum(f['never_drawn_by_key'].values())} never drawn)"
             if f['moves_without_redraw'] else ""))
    if f["pss_mib_per_player"] is not None:
        print(f"memory per player at the busiest moment ({f['players_at_peak']} games running, "
              f"{done.peak.at:.0f} s in): PSS mean {f['pss_mib_per_player']} MiB (max "
              f"{f['pss_mib_per_player_max']}) in {f['processes_per_player']} processes (the "
              f"game's process group); everything below the server {f['tree_pss_mib']} MiB "
              f"PSS in {f['tree_processes']} processes ({f['tree_pss_mib_per_player']} MiB, "
              f"{f['tree_processes_per_player']} processes per player); server process RSS "
              f"{f['server_rss_mib']} MiB (PSS {f['server_pss_mib']})"
              + (f"; fork server PSS {f['fork_server_pss_mib']} MiB"
                 if f["fork_server_pss_mib"] else ""))
    if f["title_after_connect_s_median"] is not None:
        print(f"title after connecting: median {f['title_after_connect_s_median']} s, p95 "
              f"{f['title_after_connect_s_p95']} s")
    if done.logins:
        print(f"{f['logins']} logins while they played: {f['logins_finished']} reached the "
              f"title; title after connecting: median {f['logins_title_s_median']} s, p95 "
              f"{f['logins_title_s_p95']} s, max {f['logins_title_s_max']} s")
    if finished:
        for label, values in (("connect + login", [r.connect_s for r in finished]),
                              ("one round" if not moves else f"{moves} moves",
                               [r.round_s for r in finished])):
            print(f"{label}: median {statistics.median(values):.2f} s, p95 "
                  f"{percentile(values, 0.95):.2f} s, max {max(values):.2f} s")
        turns = [r.turns for r in finished]
        what = "moves played" if moves else "turns per round (the player's)"
        print(f"{what}: median {statistics.median(turns):.0f}; "
              f"move list used {sum(r.move_list_used for r in finished)} times")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.load",
        description="Load test of casino-tui serve on 127.0.0.1: scripted players over SSH.")
    parser.add_argument("--sessions", type=int, default=20, metavar="N",
                        help="players at once, each playing the computer (default 20)")
    parser.add_argument("--tables", type=int, default=0, metavar="N",
                        help="instead: N tables at once where people play each other")
    parser.add_argument("--players", type=int, default=2, metavar="N",
                        help="people at each table with --tables (2 to 4; default 2)")
    parser.add_argument("--timeout", type=float, default=300.0, metavar="SECONDS",
                        help="stop everything after this long (default 300)")
    parser.add_argument("--step-timeout", type=float, default=60.0, metavar="SECONDS",
                        help="longest wait for one expected screen (default 60)")
    parser.add_argument("--stagger", type=float, default=0.0, metavar="SECONDS",
                        help="pause between connections with --sessions (default 0: all at "
                             "once)")
    parser.add_argument("--size", default="100x30", metavar="WxH",
                        help="terminal size of every client (default 100x30)")
    parser.add_argument("--moves", type=int, default=0, metavar="N",
                        help="stop after each player's first N moves (default 0: play the "
                             "whole round)")
    parser.add_argument("--pace", type=float, default=0.0, metavar="SECONDS",
                        help="a person's pace: each player sends a key at most every SECONDS "
                             "(2: one key every two seconds), and never before the previous "
                             "key's effect is on the screen (default 0: as fast as drawn)")
    parser.add_argument("--redraw-timeout", type=float, default=5.0, metavar="SECONDS",
                        help="a key of the round with no output within this long counts as "
                             "never redrawn (default 5)")
    parser.add_argument("--client-processes", type=int, default=1, metavar="N",
                        help="with --sessions: spread the scripted players over N processes, "
                             "each with its own event loop (default 1: all in this one)")
    parser.add_argument("--every-right", action="store_true",
                        help="press Right at each turn, also at the last card of a deal, where "
                             "it changes nothing and counts as never redrawn (as the tool did "
                             "before; to compare)")
    parser.add_argument("--seed", type=int, default=1, metavar="N",
                        help="when each player starts within their first --pace (default 1)")
    parser.add_argument("--title-only", action="store_true",
                        help="quit at the title screen: measure logins alone")
    parser.add_argument("--logins", type=int, default=0, metavar="N",
                        help="with --sessions: N more players log in at once while those "
                             "play, and quit at their title (default 0)")
    parser.add_argument("--logins-after", type=float, default=15.0, metavar="SECONDS",
                        help="when the --logins come, after the start (default 15)")
    parser.add_argument("--no-fork-server", dest="fork_server", action="store_false",
                        help="the server starts each session as a fresh Python (to compare "
                             "with its fork server)")
    parser.add_argument("--store", metavar="URL",
                        help="the server keeps its players in this PostgreSQL store too "
                             "(serve --store URL; with --sessions)")
    parser.add_argument("--session-nice", type=int, choices=range(20), metavar="N",
                        help="the server's --session-nice: its games run N nice steps below "
                             "it (default: the server's own default; 0: the same priority)")
    parser.add_argument("--trace", metavar="FILE", type=Path,
                        help="with --tables: the server's games, its table channel and this "
                             "tool append each step of every move to FILE (JSON lines; "
                             "python -m benchmarks.tracetables FILE says where the time went)")
    parser.add_argument("--unredrawn", metavar="FILE", type=Path,
                        help="write each key never redrawn to FILE (JSON lines: the player, "
                             "the key, when its output came after all, and the screen's last "
                             "text before it)")
    parser.add_argument("--transcripts", metavar="DIR", type=Path,
                        help="with --sessions: write to DIR the transcript of each player that "
                             "did not finish or had a key never redrawn (loadN.jsonl: every "
                             "chunk of output, key and wait, with times; python -m "
                             "benchmarks.loadkit replay FILE [SECONDS] shows its screen)")
    parser.add_argument("--samples", metavar="FILE", type=Path,
                        help="with --sessions: write each measured key to FILE (JSON lines: "
                             "the player, the key, its number among the player's measured "
                             "keys, when it went, in seconds from the first connection and "
                             "on the system's monotonic clock, and its latency in ms)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
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
    if not 0 <= args.logins <= 200 or args.logins_after < 0:
        parser.error("--logins must be between 0 and 200, --logins-after not negative")
    if not 0 <= args.tables <= 100:
        parser.error("--tables must be between 1 and 100 (0: --sessions)")
    if not 2 <= args.players <= 4:
        parser.error("--players must be between 2 and 4")
    if args.timeout <= 0 or args.step_timeout <= 0:
        parser.error("timeouts must be positive")
    if args.moves < 0:
        parser.error("--moves must not be negative")
    if not 0 <= args.pace <= 60:
        parser.error("--pace must be between 0 and 60 seconds")
    if not 1 <= args.client_processes <= 16:
        parser.error("--client-processes must be between 1 and 16")
    if args.redraw_timeout <= 0:
        parser.error("--redraw-timeout must be positive")
    if args.transcripts is not None:
        args.transcripts.mkdir(parents=True, exist_ok=True)
    if args.trace is not None:  # read by the server it starts, its games and this tool
        os.environ[trace.TRACE_ENV] = str(args.trace.resolve())
        trace.reset()
    return asyncio.run(run(args, (w, h)))


if __name__ == "__main__":
    sys.exit(main())
