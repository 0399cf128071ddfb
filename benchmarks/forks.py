"""Games forked from the fork server against fresh processes: time and CPU to the title, memory.

    .venv/bin/python -m benchmarks.forks --games 5 [--into-game] [--runs 2]

No SSH: the server's own pieces (``casino_tui.serve.forkserver.ForkServer`` and the environment
a session gets, ``child_environment``) start ``--games`` games at once, each on its own PTY
(100x30) with its own player directory, alternately forked from a warm fork server and as
fresh ``python -m casino_tui`` processes. For each it prints the seconds from the start to the
title on the PTY (median and max), the CPU seconds each game spent to get there, and, a few
seconds later (after starting a game and playing one move with ``--into-game``: ``n``, Enter,
Right, Enter), the PSS and private memory of each game's own process from /proc/PID/smaps,
and the fork server's PSS. The computer players' worker of a game is not counted.

``--quit``: instead of the memory, each game is quit at its title (``q``, as the load tool's
``--title-only`` players do) and the CPU seconds it spent from its start (the fork) to its exit
are read from the CPU of the ended children of its parent (the fork server for a forked game,
this process for a fresh one), with the seconds from ``q`` to the exit. Prints figures only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from casino_tui.serve.forkserver import ForkServer
from casino_tui.serve.pty_session import child_environment, set_winsize

TITLE = b"fishing card game"


def smaps_rollup(pid: int) -> dict[str, int]:
    """The fields of /proc/PID/smaps_rollup, in KiB."""
    out = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        out[name] = int(value.split()[0])
    return out


def cpu_seconds(pid: int, children: bool = False) -> float:
    """The CPU seconds of process ``pid`` (``children``: of its ended and reaped children)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    first = 13 if children else 11
    return (int(fields[first]) + int(fields[first + 1])) / os.sysconf("SC_CLK_TCK")


def ended_children_cpu(forker: ForkServer | None) -> float:
    """The CPU seconds of the games that have ended: the fork server reaps forked games, this
    process fresh ones."""
    if forker is not None:
        assert forker.pid is not None
        return cpu_seconds(forker.pid, children=True)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class Game:
    def __init__(self, proc: Any, master: int, started: float) -> None:
        self.proc, self.master, self.started = proc, master, started
        self.screen = b""
        self.title_s: float | None = None
        self.title_cpu: float | None = None
        self.changed = asyncio.Event()

    def read(self) -> None:
        try:
            data = os.read(self.master, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        self.screen = (self.screen + data)[-200_000:]
        if self.title_s is None and TITLE in self.screen:
            self.title_s = time.monotonic() - self.started
            self.title_cpu = cpu_seconds(self.proc.pid)
        self.changed.set()


async def start(forker: ForkServer | None, home: Path) -> Game:
    for sub in ("data", "config"):
        (home / sub).mkdir(parents=True)
    env = child_environment("xterm-256color", {}, home, home / "data", home / "config")
    master, slave = os.openpty()
    set_winsize(master, 100, 30)
    os.set_blocking(master, False)
    began = time.monotonic()
    try:
        if forker is not None:
            proc: Any = await forker.spawn(slave, [], env, home)
        else:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "casino_tui", stdin=slave, stdout=slave, stderr=slave,
                env=env, cwd=home, start_new_session=True)
    finally:
        os.close(slave)
    game = Game(proc, master, began)
    asyncio.get_running_loop().add_reader(master, game.read)
    return game


async def wait_for(game: Game, text: bytes, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while text not in game.screen:
        game.changed.clear()
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"{text!r} did not appear")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(game.changed.wait(), left)


async def quit_at_title(forker: ForkServer | None, started: list[Game],
                        cpu_before: float) -> dict[str, Any]:
    """Quit every game at its title; the CPU each spent from its start to its exit."""
    quit_at = time.monotonic()
    for g in started:
        os.write(g.master, b"q")
    quits = []
    for g in started:  # a forked game's end is reported once the fork server has reaped it
        await asyncio.wait_for(g.proc.wait(), 60)
        quits.append(time.monotonic() - quit_at)
    return {"cpu_to_exit_s_mean": round((ended_children_cpu(forker) - cpu_before)
                                        / len(started), 3),
            "quit_to_exit_s_median": round(statistics.median(quits), 3)}


async def one_run(mode: str, games: int, into_game: bool,
                  quit_title: bool = False) -> dict[str, Any]:
    forker = None
    if mode == "forked":
        forker = ForkServer()
        forker.start()
        if not await forker.wait_ready(120):
            raise SystemExit("the fork server did not start")
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="casino-tui-fork-sessions-") as tmp:
        cpu_before = ended_children_cpu(forker)
        started = await asyncio.gather(*(start(forker, Path(tmp) / f"p{i}")
                                         for i in range(games)))
        try:
            await asyncio.gather(*(wait_for(g, TITLE, 120) for g in started))
            if quit_title:
                ended = await quit_at_title(forker, started, cpu_before)
            else:
                await asyncio.sleep(1.0)
            if into_game and not quit_title:
                for g in started:
                    os.write(g.master, b"n")
                await asyncio.gather(*(wait_for(g, b"Preset", 60) for g in started))
                for g in started:
                    os.write(g.master, b"\r")
                await asyncio.gather(*(wait_for(g, b"Your hand", 60) for g in started))
                await asyncio.sleep(3.0)
                for g in started:
                    os.write(g.master, b"\x1b[C")
                    await asyncio.sleep(0.1)
                    os.write(g.master, b"\r")
            if not quit_title:
                await asyncio.sleep(3.0)
                memory = [smaps_rollup(g.proc.pid) for g in started]
                forker_pss = (smaps_rollup(forker.pid)["Pss"] if forker and forker.pid
                              else None)
        finally:
            for g in started:
                asyncio.get_running_loop().remove_reader(g.master)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(g.proc.pid, signal.SIGKILL)
            for g in started:
                await g.proc.wait()
                os.close(g.master)
            if forker is not None:
                await forker.close()
    titles = [g.title_s for g in started if g.title_s is not None]
    cpus = [g.title_cpu for g in started if g.title_cpu is not None]
    figures = {
        "mode": mode, "games": games, "into_game": into_game, "load_before": round(load, 1),
        "title_s_median": round(statistics.median(titles), 3),
        "title_s_max": round(max(titles), 3),
        "cpu_to_title_s_median": round(statistics.median(cpus), 3),
    }
    if quit_title:
        return figures | ended
    return figures | {
        "pss_mib_median": round(statistics.median(m["Pss"] for m in memory) / 1024, 1),
        "private_mib_median": round(statistics.median(
            m["Private_Dirty"] + m["Private_Clean"] for m in memory) / 1024, 1),
        "fork_server_pss_mib": round(forker_pss / 1024, 1) if forker_pss else None,
    }


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.forks", description=__doc__)
    parser.add_argument("--games", type=int, default=5, help="games at once (default 5)")
    parser.add_argument("--runs", type=int, default=2,
                        help="runs of each start, alternated (default 2)")
    parser.add_argument("--into-game", action="store_true",
                        help="start a game and play a move before measuring memory")
    parser.add_argument("--quit", action="store_true",
                        help="quit each game at its title and measure its CPU from its start "
                             "to its exit (no memory)")
    args = parser.parse_args()
    for _ in range(args.runs):
        for mode in ("forked", "fresh"):
            print(json.dumps(asyncio.run(one_run(mode, args.games, args.into_game,
                                                 args.quit))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
