"""Where a served player's round goes in CPU: ``python -m benchmarks.servedcpu [--runs 3]``.

``benchmarks.keycpu --forked`` measures the keys of a game forked as the server forks it, but
on a pseudo-terminal of its own and with a computer-player worker of its own. This plays the
load tool's script (:mod:`benchmarks.load`: title ``n``, Enter, then at each turn Right and
Enter, ``m`` and Enter when the card has no move, Ctrl+Q at the round's end) through a real
``casino-tui serve`` on loopback (its fork server, its pool of computer players, one asyncssh
client with a PTY of 100x30), one key at a time: after each key it waits for the key's effect
and for a quiet screen, then reads the CPU (every thread, ``/proc/PID/task/*/schedstat``) of
the game, the server, the pool's processes and this process (the SSH client and the script).

It prints, per phase (login to the title, ``n``, the deal, each kind of key, ``round_over``:
the play that ends the round and shows its summary, counted apart from the other plays,
quitting) and for the whole round: the CPU milliseconds of each process and the collector's
in the game (``gc_ms``: the game's cyclic garbage collections, timed in the game through
``gc.callbacks`` by :mod:`benchmarks.gchook`, with their count per generation), and the CPU a
game spends a second while it waits for the player (``idle``). A play's figure runs from Enter
to the player's next turn on the screen: it includes the computer's answer, drawn (as keycpu).

``--gc-thresholds A,B,C`` sets the games' collector's thresholds in place of the fork server's
(:data:`casino_tui.serve.forkserver.SESSION_GC_THRESHOLDS`), and ``--gc-freeze`` makes each
game collect and freeze what it holds once its first frame is drawn (both through the hook,
to compare settings without changing the product). ``--profile-server FILE`` runs the
server's main thread under cProfile and writes its statistics to FILE (the figures then
include the profiler's cost); ``--no-ignore-packets`` drops the empty ``SSH_MSG_IGNORE``
packet asyncssh sends before each packet, in the server (an experiment). ``--json``: the
figures as JSON. Traffic only to 127.0.0.1. A measuring tool, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .keycpu import cpu_ns
from .load import SETUP, TABLE
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
    LoopbackServer,
    Screen,
    _all_stats,
    _children_cpu_seconds,
    cards_shown,
    fork_servers,
    open_terminal,
    session_pid_of,
)

HOOK_DIR = Path(__file__).with_name("gchook")
QUIET = 0.3  # seconds without output after which a key's effect is taken as drawn
IDLE = 5.0  # seconds the game is left waiting for the player, to measure its idle CPU


class Meter:
    """CPU nanoseconds of the game, the server, the pool and this process, and the game's
    collector, read at each phase's end."""

    def __init__(self, server_pid: int, game_pid: int, gc_dir: Path) -> None:
        self.server_pid = server_pid
        self.game_pid = game_pid
        self.gc_dir = gc_dir
        stats = _all_stats()
        forkers = set(fork_servers(server_pid, stats))
        # the pool: the server's other children (its processes, and multiprocessing's
        # resource tracker)
        self.pool = [pid for pid, (ppid, _pgid) in stats.items()
                     if ppid == server_pid and pid not in forkers]
        self.last = self.read()

    def gc(self) -> tuple[int, int, int, int]:
        try:
            ns, *counts = (int(x) for x in (self.gc_dir / str(self.game_pid)).read_text().split())
        except (OSError, ValueError):
            return 0, 0, 0, 0
        return ns, counts[0], counts[1], counts[2]

    def read(self) -> dict[str, int]:
        gc_ns, g0, g1, g2 = self.gc()
        user, system = user_system_ns(self.server_pid)
        try:
            game_user, game_system = user_system_ns(self.game_pid)
        except OSError:  # the game has ended: its last reading stays
            game_user, game_system = self.last["game_user"], self.last["game_system"]
        return {"game": cpu_ns(self.game_pid), "server": cpu_ns(self.server_pid),
                "server_user": user, "server_system": system,
                "game_user": game_user, "game_system": game_system,
                "pool": sum(cpu_ns(pid) for pid in self.pool),
                "client": time.process_time_ns(), "gc": gc_ns, "gc0": g0, "gc1": g1, "gc2": g2}

    def step(self) -> dict[str, int]:
        now = self.read()
        delta = {k: now[k] - self.last[k] for k in now}
        self.last = now
        return delta


def user_system_ns(pid: int) -> tuple[int, int]:
    """User and system CPU of a process (nanoseconds, in clock ticks: 10 ms steps)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = 1_000_000_000 // os.sysconf("SC_CLK_TCK")
    return int(fields[11]) * tick, int(fields[12]) * tick


def memory_kb(pid: int) -> tuple[int, int]:
    """(PSS, private: clean and dirty) of a process in KiB. With one game the PSS counts half
    of every page it shares with the fork server: its private memory is what a change of the
    game's own moves."""
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, _, rest = line.partition(":")
        fields[name] = int(rest.split()[0])
    return fields["Pss"], fields["Private_Clean"] + fields["Private_Dirty"]


async def _quiet(screen: Screen) -> None:
    await screen.quiet(QUIET, timeout=30)


async def play_round(port: int, work: Path, server_pid: int, gc_dir: Path,
                     number: int) -> dict[str, list[dict[str, int]]]:
    """One player's round through the server; each phase's CPU deltas, by phase name."""
    import asyncssh

    phases: dict[str, list[dict[str, int]]] = defaultdict(list)
    key = asyncssh.generate_private_key("ssh-ed25519")
    screen = Screen()
    user = f"cpu{number}"
    forker_before = sum(_children_cpu_seconds(pid) for pid in fork_servers(server_pid))
    server_before = cpu_ns(server_pid)
    client_before = time.process_time_ns()
    async with asyncssh.connect(HOST, port, username=user, client_keys=[key],
                                known_hosts=None, agent_path=None,
                                preferred_auth="publickey") as conn:
        chan = await open_terminal(conn, screen, (100, 30))
        await screen.wait(TITLE, timeout=30)
        await _quiet(screen)
        pid = session_pid_of(work / "server.log", user)
        assert pid is not None, "the server's log names no game"
        meter = Meter(server_pid, pid, gc_dir)
        login = {"game": meter.last["game"], "server": meter.last["server"] - server_before,
                 "server_user": 0, "server_system": 0, "game_user": 0, "game_system": 0,
                 "pool": 0, "client": meter.last["client"] - client_before,
                 "gc": meter.last["gc"], "gc0": meter.last["gc0"], "gc1": meter.last["gc1"],
                 "gc2": meter.last["gc2"]}
        phases["login"].append(login)
        meter.step()

        async def press(name: str, data: bytes, *patterns: Any) -> int:
            screen.mark()
            before = screen.chunks
            chan.write(data)
            seen = 0
            # the key's first output (the screen may be quiet already), then its patterns
            await screen.next_chunk(before, timeout=5)
            if patterns:
                seen = await screen.wait(*patterns, timeout=30)
            await _quiet(screen)
            if patterns and patterns[seen] is ROUND_OVER:
                name = "round_over"  # the play that ends the round: counted apart
            phases[name].append(meter.step())
            if os.environ.get("SERVEDCPU_DEBUG"):
                print(name, screen.chunks, phases[name][-1], file=sys.stderr)
            return seen

        await asyncio.sleep(IDLE)
        phases["idle_title_5s"].append(meter.step())
        await press("n", b"n", SETUP)
        await press("deal", KEY_ENTER, TABLE)
        await screen.wait(YOUR_TURN, timeout=30)
        await _quiet(screen)
        meter.step()
        turn = 0
        while True:
            turn += 1
            if turn == 2:  # the game waiting for the player, at the table
                await asyncio.sleep(IDLE)
                phases["idle_table_5s"].append(meter.step())
            row = screen.last_match(HAND_ROW, 0)
            hand = cards_shown(row) if row is not None else 2
            if hand > 1:
                await press("right", KEY_RIGHT)
            seen = await press("play", KEY_ENTER, ROUND_OVER, YOUR_TURN, NO_MOVE)
            if seen == 2:
                await press("m", b"m", MOVE_LIST)
                seen = await press("play_from_list", KEY_ENTER, ROUND_OVER, YOUR_TURN)
            if seen == 0:
                break
        await asyncio.sleep(IDLE)
        phases["idle_round_over_5s"].append(meter.step())
        memory = memory_kb(pid)
        screen.mark()
        chan.write(KEY_QUIT)
        await asyncio.wait_for(chan.wait_closed(), 30)
    await asyncio.sleep(0.5)  # the fork server reaps the game
    forker_after = sum(_children_cpu_seconds(p) for p in fork_servers(server_pid))
    quit_ = meter.step()
    whole_game_ns = int((forker_after - forker_before) * 1e9)
    counted = sum(d["game"] for ds in phases.values() for d in ds)
    quit_["game"] = max(0, whole_game_ns - counted)  # (clock ticks: 10 ms steps)
    phases["quit"].append(quit_)
    phases["memory_kb"].append({"pss": memory[0], "private": memory[1]})
    return phases


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="casino-servedcpu-") as tmp:
        work = Path(tmp)
        gc_dir = work / "gc"
        gc_dir.mkdir()
        hook = work / "hook"
        hook.mkdir()
        shutil.copy(HOOK_DIR / "sitecustomize.py", hook)
        (hook / "gchook.json").write_text(json.dumps({
            "dir": str(gc_dir), "freeze": args.gc_freeze, "no_ignore": args.no_ignore_packets,
            "profile_server": os.path.abspath(args.profile_server) if args.profile_server
            else None,
            "thresholds": [int(x) for x in args.gc_thresholds.split(",")]
            if args.gc_thresholds else None}))
        os.environ["PYTHONPATH"] = os.pathsep.join(
            [str(hook), *filter(None, [os.environ.get("PYTHONPATH")])])
        server = LoopbackServer(work, 4)
        port = await server.start()
        try:
            await asyncio.sleep(3)  # the fork server's warm-up
            runs = []
            for number in range(args.runs):
                runs.append(await play_round(port, work, server.pid, gc_dir, number))
        finally:
            await server.stop()
    return summarise(runs)


def summarise(runs: list[dict[str, list[dict[str, int]]]]) -> dict[str, Any]:
    """Per phase: the median over runs of each figure per key (ms), the keys per round; and
    the round's totals."""
    out: dict[str, Any] = {}
    names = list(dict.fromkeys(name for r in runs for name in r if name != "memory_kb"))
    out["memory_kb_at_round_end"] = {
        "pss": statistics.median(r["memory_kb"][0]["pss"] for r in runs),
        "private": statistics.median(r["memory_kb"][0]["private"] for r in runs)}
    for name in names:
        per_run = [r.get(name, []) for r in runs]
        count = statistics.median(len(p) for p in per_run)
        fig: dict[str, Any] = {"per_round": count}
        for k in ("game", "gc", "server", "pool", "client"):
            values = [d[k] / 1e6 for p in per_run for d in p]
            fig[f"{k}_ms"] = round(statistics.mean(values), 2) if values else None
            fig[f"{k}_ms_round"] = round(statistics.median(
                sum(d[k] for d in p) / 1e6 for p in per_run), 1)
        for k in ("gc0", "gc1", "gc2"):
            fig[k] = round(statistics.median(sum(d[k] for d in p) for p in per_run), 1)
        out[name] = fig
    totals: dict[str, Any] = {}
    rounds = [{n: ds for n, ds in r.items() if n != "memory_kb"} for r in runs]
    for k in ("game", "game_user", "game_system", "gc", "server", "server_user",
              "server_system", "pool", "client"):
        totals[f"{k}_ms"] = round(statistics.median(
            sum(d[k] for ds in r.values() for d in ds) / 1e6 for r in rounds), 1)
        totals[f"{k}_ms_runs"] = [round(sum(d[k] for ds in r.values() for d in ds) / 1e6)
                                  for r in rounds]
    out["round_total"] = totals
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.servedcpu",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="rounds, one player after another")
    parser.add_argument("--gc-thresholds", default="", help="A,B,C for the games' collector")
    parser.add_argument("--gc-freeze", action="store_true",
                        help="the games freeze what they hold after their first frame")
    parser.add_argument("--profile-server", metavar="FILE", default="",
                        help="run the server's main thread under cProfile; its statistics "
                             "to FILE")
    parser.add_argument("--no-ignore-packets", action="store_true",
                        help="the server sends no empty SSH_MSG_IGNORE before each packet "
                             "(an experiment, to measure what they cost)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.gc_thresholds and not re.fullmatch(r"\d+,\d+,\d+", args.gc_thresholds):
        parser.error("--gc-thresholds takes A,B,C")
    figures = asyncio.run(run(args))
    figures["load_average"] = os.getloadavg()
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"{'phase':<20}{'/round':>7}{'game ms':>9}{'gc ms':>7}{'server':>8}{'pool':>7}"
          f"{'client':>8}   per round: game gc server pool client (ms)   gc0 gc1 gc2")
    for name, f in figures.items():
        if name in ("round_total", "load_average", "memory_kb_at_round_end"):
            continue
        print(f"{name:<20}{f['per_round']:>7}{f['game_ms']:>9}{f['gc_ms']:>7}"
              f"{f['server_ms']:>8}{f['pool_ms']:>7}{f['client_ms']:>8}   "
              f"{f['game_ms_round']:>7} {f['gc_ms_round']:>5}"
              f" {f['server_ms_round']:>6} {f['pool_ms_round']:>5} {f['client_ms_round']:>6}"
              f"   {f['gc0']:>4} {f['gc1']:>3} {f['gc2']:>3}")
    print("round total:", json.dumps(figures["round_total"]))
    print("the game's memory at the round's end (KiB):",
          json.dumps(figures["memory_kb_at_round_end"]))
    print("load average:", " ".join(f"{x:.2f}" for x in figures["load_average"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
