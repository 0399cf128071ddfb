"""Load test of ``casino-tui serve``: scripted players at once, over real SSH, on loopback.

    python -m casino_tui.serve.load [--sessions 20] [--timeout 300] [--moves N] [--json]
    python -m casino_tui.serve.load --tables 10 [--players 2] [--moves N] [--json]

It starts its own server (``casino-tui serve`` on 127.0.0.1, a free port, a temporary data
directory, no rate limit) and asyncssh clients, each with its own key and a PTY, pressing the
keys a person uses.

``--sessions N``: N players each play a whole round against the computer (title ``n``, Enter to
start; at each turn Right to look at the next card, then Enter to play the previewed move, or
``m`` and Enter to pick from the list when that card has no move), then quit with Ctrl+Q.
It prints: sessions finished, exit statuses, games saved (resumable after quitting), memory per
session (RSS and PSS of each game's process group, sampled every second; the figures at the
busiest moment), key-to-screen latency over SSH (from sending Right to the first byte of the
redrawn screen, measured only while the game waits for the player), time to the title screen
and to finish a round.

``--tables N --players P``: N tables of P people each play a whole round against each other at
the server's tables (:mod:`casino_tui.serve.loadtables`: one creates the table and reads its code
from the screen, the others come with ``join CODE``, the creator starts). It prints the tables
finished, the time from one player's key press that plays a move to that move on every other
player's screen, key to one's own screen, memory per session and each round's length.

``--title-only``: each player quits as soon as the title screen is shown (logins alone: the time
from connecting to the title, its median and p95). ``--no-fork-server``: the server starts every
session as a fresh Python instead of forking it from its warm fork server (to compare the two).

``--moves N`` stops after each player's first N moves instead of the whole round (a quick check;
the tests use it through :func:`play_sessions` and :func:`play_tables`); ``--json`` prints the
figures as JSON. Traffic goes only to 127.0.0.1, and everything stops after --timeout seconds at
the latest. This is a measuring tool, not a test: it does not fail on slowness.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .loadkit import (
    HOST,
    KEY_ENTER,
    KEY_QUIT,
    KEY_RIGHT,
    MOVE_LIST,
    NO_MOVE,
    ROUND_OVER,
    TITLE,
    YOUR_TURN,
    LoopbackServer,
    MemoryPeak,
    Screen,
    moved,
    percentile,
)
from .loadtables import Table, TableResult
from .players import PlayerDirs, has_saved_game

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
    latencies: list[float] = field(default_factory=list)
    no_redraw: int = 0
    saved: bool | None = None


async def play_one(number: int, port: int, key: Any, size: tuple[int, int],
                   data_dir: Path, step_timeout: float, moves: int = 0,
                   title_only: bool = False) -> Result:
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

            read_task = asyncio.create_task(screen.read_from(process.stdout))
            try:
                await _script(process, screen, res, t0, step_timeout, moves, title_only)
                await asyncio.wait_for(process.wait_closed(), step_timeout)
                res.exit_status = process.exit_status
                # the game is closed now (an open one counts as "in use"): can it be continued?
                dirs = PlayerDirs.for_fingerprint(data_dir, res.fingerprint)
                if not title_only:  # quitting at the title saves nothing
                    res.saved = await asyncio.to_thread(has_saved_game, dirs.data)
                res.finished = res.exit_status == 0 and (
                    title_only or res.round_over or (moves > 0 and res.turns >= moves))
            finally:
                read_task.cancel()
    except (OSError, asyncssh.Error, TimeoutError, EOFError) as err:
        res.error = f"{type(err).__name__}: {err}"
    return res


async def _script(process: Any, screen: Screen, res: Result, t0: float, step: float,
                  moves: int, title_only: bool = False) -> None:
    """Play until the round is over, or ``moves`` moves of the player (0: no limit); with
    ``title_only``, quit at the title."""
    def send(data: bytes) -> None:
        process.stdin.write(data)

    await screen.wait(TITLE, timeout=step)
    res.title_s = time.monotonic() - t0
    if title_only:
        await screen.quiet(0.1)
        send(b"q")
        return
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
                        work: Path | None = None, title_only: bool = False,
                        fork_server: bool = True) -> LoadRun:
    """Start a server on 127.0.0.1 and ``sessions`` scripted players; stop it; measure.

    ``work`` (default: a new temporary directory) gets the server's data and log."""
    import asyncssh

    if work is None:
        work = Path(tempfile.mkdtemp(prefix="casino-tui-load-"))
    server = LoopbackServer(work, sessions, fork_server=fork_server)
    started = time.monotonic()
    results: list[Result] = []
    try:
        port = await server.start()
        keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(sessions)]

        async def staggered(i: int) -> Result:
            await asyncio.sleep(i * stagger)
            return await play_one(i + 1, port, keys[i], size, server.data_dir, step_timeout,
                                  moves, title_only)

        tasks = [asyncio.create_task(staggered(i)) for i in range(sessions)]
        done, pending = await asyncio.wait(tasks, timeout=timeout)
        for t in pending:
            t.cancel()
        for i, t in enumerate(tasks):
            if t in done and not t.cancelled() and t.exception() is None:
                results.append(t.result())
            else:
                results.append(Result(i + 1, error="did not finish within --timeout"))
    finally:
        await server.stop()
    elapsed = time.monotonic() - started
    return LoadRun(sessions, size, results, server.peak, elapsed, server.cpu,
                   server.leftovers, work)


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
        pss = [v[1] / 1024 for v in self.peak.sessions.values()]
        rss = [v[0] / 1024 for v in self.peak.sessions.values()]
        return {
            "tables": self.tables,
            "players": self.players,
            "terminal": f"{self.size[0]}x{self.size[1]}",
            "moves_per_player": self.moves or None,
            "tables_finished": self.finished,
            "move_to_other_screen_ms_median": _ms(statistics.median(lat) if lat else None),
            "move_to_other_screen_ms_p95": _ms(percentile(lat, 0.95) if lat else None),
            "move_to_other_screen_ms_p99": _ms(percentile(lat, 0.99) if lat else None),
            "move_to_other_screen_ms_max": _ms(max(lat) if lat else None),
            "move_to_other_screen_samples": len(lat),
            "moves_not_seen_by_others": sum(r.missed for r in self.results),
            "key_to_own_screen_ms_median": _ms(statistics.median(own) if own else None),
            "key_to_own_screen_ms_p95": _ms(percentile(own, 0.95) if own else None),
            "pss_mib_per_session": _round(statistics.mean(pss) if pss else None),
            "pss_mib_per_session_max": _round(max(pss) if pss else None),
            "rss_mib_per_session": _round(statistics.mean(rss) if rss else None),
            "sessions_at_peak": len(pss),
            "server_rss_mib": _round(self.peak.server_rss / 1024),
            "server_pss_mib": _round(self.peak.server_pss / 1024),
            "server_cpu_s": _round(self.server_cpu),
            "games_cpu_s": _round(sum(self.peak.cpu.values())),
            "load_tool_cpu_s": _round(self.client_cpu),
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
                      moves: int = 0, work: Path | None = None) -> TablesRun:
    """Start a server on 127.0.0.1; at ``tables`` tables at once, ``players`` scripted people
    each play a round (or their first ``moves`` moves) against each other; stop it; measure.

    ``work`` (default: a new temporary directory) gets the server's data and log."""
    import asyncssh

    if work is None:
        work = Path(tempfile.mkdtemp(prefix="casino-tui-load-"))
    server = LoopbackServer(work, tables * players)
    load_before = os.getloadavg()
    started = time.monotonic()
    cpu_before = time.process_time()
    results: list[TableResult] = []
    try:
        port = await server.start()
        scripts = [Table(i + 1, port, [asyncssh.generate_private_key("ssh-ed25519")
                                       for _ in range(players)], size, step_timeout, moves, work)
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
        await server.stop()
    elapsed = time.monotonic() - started
    return TablesRun(tables, players, size, moves, results, server.peak, elapsed, server.cpu,
                     server.leftovers, work, load_before, os.getloadavg(),
                     time.process_time() - cpu_before)


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
              f"{f['move_to_other_screen_ms_median']} ms, p95 "
              f"{f['move_to_other_screen_ms_p95']} ms, p99 {f['move_to_other_screen_ms_p99']} "
              f"ms, max {f['move_to_other_screen_ms_max']} ms")
    if f["moves_not_seen_by_others"]:
        print(f"  ({f['moves_not_seen_by_others']} moves not seen on another screen in time)")
    if f["key_to_own_screen_ms_median"] is not None:
        print(f"key to one's own screen (Right): median {f['key_to_own_screen_ms_median']} ms, "
              f"p95 {f['key_to_own_screen_ms_p95']} ms")
    if f["pss_mib_per_session"] is not None:
        print(f"memory per session at the busiest moment ({f['sessions_at_peak']} games): PSS "
              f"mean {f['pss_mib_per_session']} MiB (max {f['pss_mib_per_session_max']}), RSS "
              f"mean {f['rss_mib_per_session']} MiB; server process (SSH, PTYs, the table hub) "
              f"RSS {f['server_rss_mib']} MiB, PSS {f['server_pss_mib']} MiB")
    if f["round_s_median"] is not None:
        print(f"everyone seated in {f['seated_s_median']} s (median); "
              f"{'the moves' if run.moves else 'a round'}: median {f['round_s_median']} s, max "
              f"{f['round_s_max']} s; {f['moves_played']} moves played, the move list used "
              f"{f['move_list_used']} times")


# ---------------------------------------------------------------------- the command
def session_figures(done: LoadRun, moves: int) -> dict[str, Any]:
    """The figures of a ``--sessions`` run, as ``--json`` prints them."""
    lat = [x for r in done.results for x in r.latencies]
    finished = [r for r in done.results if r.finished]
    pss = [v[1] / 1024 for v in done.peak.sessions.values()]
    rounds = [r.round_s for r in finished]
    titles = [r.title_s for r in finished]
    return {
        "sessions": done.sessions,
        "moves_per_player": moves or None,
        "sessions_finished": len(finished),
        "saved": sum(bool(r.saved) for r in done.results),
        "key_to_screen_ms_median": _ms(statistics.median(lat) if lat else None),
        "key_to_screen_ms_p95": _ms(percentile(lat, 0.95) if lat else None),
        "title_s_median": _round(statistics.median(titles) if titles else None, 3),
        "title_s_p95": _round(percentile(titles, 0.95) if titles else None, 3),
        "title_s_max": _round(max(titles) if titles else None, 3),
        "fork_server_pss_mib": _round(done.peak.forker_pss / 1024 if done.peak.forker_pss
                                      else None),
        "pss_mib_per_session": _round(statistics.mean(pss) if pss else None),
        "sessions_at_peak": len(pss),
        "round_s_median": _round(statistics.median(rounds) if rounds else None, 2),
        "elapsed_s": _round(done.elapsed, 1),
        "server_cpu_s": _round(done.server_cpu),
        "leftover_games": done.leftovers,
        "errors": [f"session {r.number}: {r.error or f'exit status {r.exit_status}'}"
                   for r in done.results if not r.finished],
    }


async def run(args: argparse.Namespace, size: tuple[int, int]) -> int:
    work: Path
    if args.tables:
        tables = await play_tables(args.tables, args.players, timeout=args.timeout, size=size,
                                   step_timeout=args.step_timeout, moves=args.moves)
        work, ok = tables.work, tables.ok
        if args.json:
            print(json.dumps(tables.figures(), indent=2))
        else:
            report_tables(tables)
            _cpu_line(tables.server_cpu, tables.elapsed, tables.leftovers)
    else:
        done = await play_sessions(args.sessions, timeout=args.timeout, size=size,
                                   step_timeout=args.step_timeout, stagger=args.stagger,
                                   moves=args.moves, title_only=args.title_only,
                                   fork_server=args.fork_server)
        work, ok = done.work, done.ok
        if args.json:
            print(json.dumps(session_figures(done, args.moves), indent=2))
        else:
            report(done.results, done.peak, done.elapsed, args.sessions, size, args.moves)
            _cpu_line(done.server_cpu, done.elapsed, done.leftovers)
    if args.keep:
        print(f"kept {work} (server log: {work / 'server.log'})", file=sys.stderr)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


def _cpu_line(cpu: float | None, elapsed: float, leftovers: int) -> None:
    if cpu is not None:
        print(f"server process (SSH, PTY copying, tables): {cpu:.1f} s of CPU in "
              f"{elapsed:.0f} s ({cpu / elapsed * 100:.0f}% of one core)")
    if leftovers:
        print(f"WARNING: {leftovers} game process group(s) still running")


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
              f"{statistics.median(lat) * 1000:.1f} ms, p95 {percentile(lat, 0.95) * 1000:.1f} "
              f"ms, p99 {percentile(lat, 0.99) * 1000:.1f} ms, max {max(lat) * 1000:.1f} ms")
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
              f"{peak.server_rss / 1024:.1f} MiB (PSS {peak.server_pss / 1024:.1f})"
              + (f"; fork server PSS {peak.forker_pss / 1024:.1f} MiB" if peak.forker_pss
                 else ""))
    if finished:
        for label, values in (("connect + login", [r.connect_s for r in finished]),
                              ("to the title screen", [r.title_s for r in finished]),
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
        prog="python -m casino_tui.serve.load",
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
    parser.add_argument("--title-only", action="store_true",
                        help="quit at the title screen: measure logins alone")
    parser.add_argument("--no-fork-server", dest="fork_server", action="store_false",
                        help="the server starts each session as a fresh Python (to compare "
                             "with its fork server)")
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
    if not 0 <= args.tables <= 100:
        parser.error("--tables must be between 1 and 100 (0: --sessions)")
    if not 2 <= args.players <= 4:
        parser.error("--players must be between 2 and 4")
    if args.timeout <= 0 or args.step_timeout <= 0:
        parser.error("timeouts must be positive")
    if args.moves < 0:
        parser.error("--moves must not be negative")
    return asyncio.run(run(args, (w, h)))


if __name__ == "__main__":
    sys.exit(main())
