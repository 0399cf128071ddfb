"""Games forked from the fork server against fresh processes: time and CPU to the title, memory.

    .venv/bin/python -m benchmarks.forks --games 5 [--into-game] [--runs 2]

No SSH: the server's own pieces (``casino_tui.serve.forkserver.ForkServer``, the environment
a session gets, ``child_environment``, and the pool of computer players on its channel, as
under ``serve``: a game starts no worker of its own) start ``--games`` games at once, each on
its own PTY (100x30) with its own player directory, alternately forked from a warm fork server
and as fresh ``python -m casino_tui`` processes. For each it prints the seconds from the start
to the title on the PTY (median and max), the CPU seconds each game spent to get there, and,
``--settle`` seconds later (after starting a game and playing ``--moves`` moves with
``--into-game``: ``n``, Enter, then Right, Enter for each move), the PSS and private memory
of each game's own process from /proc/PID/smaps_rollup, what the kernel's same-page merging
(KSM) had merged of it, and the fork server's PSS. ``--pages`` (root) also says where the
first forked game's pages come from, by mapping: shared with the fork server, copied on
write (and how many of the copies still hold the fork server's bytes), or new.

``--quit``: instead of the memory, each game is quit at its title (``q``, as the load tool's
``--title-only`` players do) and the CPU seconds it spent from its start (the fork) to its exit
are read from the CPU of the ended children of its parent (the fork server for a forked game,
this process for a fresh one), with the seconds from ``q`` to the exit. Prints figures only.

    .venv/bin/python -m benchmarks.forks --games 3 --into-game --moves 3 --forked-only --pages
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


PAGE = os.sysconf("SC_PAGE_SIZE")
_PRESENT, _PFN = 1 << 63, (1 << 55) - 1


def _mappings(pid: int) -> list[tuple[int, int, str]]:
    """(start, end, name) of each mapping of ``pid``: its file's name, or ``[heap]``,
    ``[stack]``, ``[anon]``..."""
    out = []
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        fields = line.split(maxsplit=5)
        start, end = (int(x, 16) for x in fields[0].split("-"))
        name = fields[5].strip() if len(fields) > 5 else "[anon]"
        out.append((start, end, Path(name).name if name.startswith("/") else name))
    return out


def _frames(pagemap: Any, start: int, end: int) -> list[int]:
    """The page frame of each page of [start, end) (0: not in memory)."""
    pagemap.seek(start // PAGE * 8)
    data = pagemap.read((end - start) // PAGE * 8)
    words = memoryview(data).cast("Q")
    return [w & _PFN if w & _PRESENT else 0 for w in words]


SAME = "(copied, and the same bytes as the fork server's page)"


def page_origins(child: int, parent: int) -> dict[str, dict[str, int]]:
    """Where the child's pages in memory come from, by mapping name, in KiB: ``shared``
    (the same page as the parent's at that address), ``copied`` (the parent has a page there,
    the child its own copy: copied on write) and ``new`` (the parent has none there); and,
    under :data:`SAME`, the copies whose bytes are still the parent's (written to, then back
    as they were: what the kernel's same-page merging would share again). Needs root (page
    frames in /proc/PID/pagemap)."""
    parent_frames: dict[int, int] = {}
    with open(f"/proc/{parent}/pagemap", "rb") as pagemap:
        for start, end, _name in _mappings(parent):
            if start >= 1 << 47:  # [vsyscall]
                continue
            for i, frame in enumerate(_frames(pagemap, start, end)):
                if frame:
                    parent_frames[start + i * PAGE] = frame
    out: dict[str, dict[str, int]] = {}
    copies: list[int] = []
    with open(f"/proc/{child}/pagemap", "rb") as pagemap:
        for start, end, name in _mappings(child):
            if start >= 1 << 47:
                continue
            row = out.setdefault(name, {"shared": 0, "copied": 0, "new": 0})
            for i, frame in enumerate(_frames(pagemap, start, end)):
                if not frame:
                    continue
                theirs = parent_frames.get(start + i * PAGE)
                kind = "new" if theirs is None else "shared" if theirs == frame else "copied"
                row[kind] += PAGE // 1024
                if kind == "copied":
                    copies.append(start + i * PAGE)
    if copies:
        row = out.setdefault(SAME, {
            "shared": 0, "copied": 0, "new": 0})
        with open(f"/proc/{child}/mem", "rb") as child_mem, \
                open(f"/proc/{parent}/mem", "rb") as parent_mem:
            for address in copies:
                with contextlib.suppress(OSError):
                    child_mem.seek(address)
                    parent_mem.seek(address)
                    if child_mem.read(PAGE) == parent_mem.read(PAGE):
                        row["copied"] += PAGE // 1024
    return out


def ksm_merged_kib(pid: int) -> int:
    """KiB of ``pid``'s pages merged by the kernel's same-page merging (0 without KSM)."""
    try:
        return int(Path(f"/proc/{pid}/ksm_merging_pages").read_text()) * PAGE // 1024
    except (OSError, ValueError):
        return 0


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


class Computers:
    """The server's pool of computer players on its channel, as under ``serve``: each game
    asks it and starts no worker process of its own."""

    def __init__(self, work: Path) -> None:
        self.path = work / "computers" / "pool.sock"
        self.pool: Any = None
        self.service: Any = None
        self.count = 0

    async def start(self) -> None:
        from casino_tui.ai.pool import ComputerPool
        from casino_tui.table.computers import ComputerService

        self.pool = ComputerPool()
        await self.pool.start()
        self.service = ComputerService(self.pool)
        await self.service.start(self.path)

    def environment(self) -> dict[str, str]:
        from casino_tui.table.computers import computers_environment
        from casino_tui.table.wire import Identity, new_secret

        self.count += 1
        secret = new_secret()
        self.service.register(secret, Identity(f"p{self.count}", f"fp{self.count}",
                                               self.count))
        return computers_environment(self.path, secret)

    async def close(self) -> None:
        await self.service.close()
        self.pool.shutdown()


async def start(forker: ForkServer | None, home: Path, computers: Computers | None) -> Game:
    for sub in ("data", "config"):
        (home / sub).mkdir(parents=True)
    env = child_environment("xterm-256color", {}, home, home / "data", home / "config")
    if computers is not None:
        env.update(computers.environment())
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


async def one_run(mode: str, games: int, into_game: bool, moves: int = 1,
                  pages: bool = False, settle: float = 3.0,
                  quit_title: bool = False) -> dict[str, Any]:
    forker = None
    if mode == "forked":
        forker = ForkServer()
        forker.start()
        if not await forker.wait_ready(120):
            raise SystemExit("the fork server did not start")
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="casino-tui-fork-sessions-") as tmp:
        computers = Computers(Path(tmp))
        await computers.start()
        cpu_before = ended_children_cpu(forker)
        started = await asyncio.gather(*(start(forker, Path(tmp) / f"p{i}", computers)
                                         for i in range(games)))
        origins = None
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
                for _ in range(moves):
                    await asyncio.sleep(3.0)
                    for g in started:
                        os.write(g.master, b"\x1b[C")
                        await asyncio.sleep(0.1)
                        os.write(g.master, b"\r")
            if not quit_title:
                await asyncio.sleep(settle)
                memory = [smaps_rollup(g.proc.pid) for g in started]
                merged = [ksm_merged_kib(g.proc.pid) for g in started]
                threads = [len(os.listdir(f"/proc/{g.proc.pid}/task")) for g in started]
                forker_pss = (smaps_rollup(forker.pid)["Pss"] if forker and forker.pid
                              else None)
            if pages and not quit_title and forker is not None and forker.pid:
                origins = page_origins(started[0].proc.pid, forker.pid)
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
            await computers.close()
    titles = [g.title_s for g in started if g.title_s is not None]
    cpus = [g.title_cpu for g in started if g.title_cpu is not None]
    out: dict[str, Any] = {
        "mode": mode, "games": games, "into_game": into_game and not quit_title,
        "moves": moves if into_game and not quit_title else 0, "load_before": round(load, 1),
        "title_s_median": round(statistics.median(titles), 3),
        "title_s_max": round(max(titles), 3),
        "cpu_to_title_s_median": round(statistics.median(cpus), 3),
    }
    if quit_title:
        return out | ended
    out |= {
        "pss_mib_median": round(statistics.median(m["Pss"] for m in memory) / 1024, 1),
        "private_mib_median": round(statistics.median(
            m["Private_Dirty"] + m["Private_Clean"] for m in memory) / 1024, 1),
        "anonymous_mib_median": round(statistics.median(m["Anonymous"] for m in memory) / 1024,
                                      1),
        "fork_server_pss_mib": round(forker_pss / 1024, 1) if forker_pss else None,
        "ksm_merged_mib_median": round(statistics.median(merged) / 1024, 1),
        "threads_max": max(threads),
    }
    if origins is not None:
        same = origins.pop(SAME, {}).get("copied", 0)
        out["pages_mib"] = {kind: round(sum(row[kind] for row in origins.values()) / 1024, 2)
                            for kind in ("shared", "copied", "new")}
        out["pages_mib"]["copied_unchanged"] = round(same / 1024, 2)
        top = sorted(origins.items(), key=lambda kv: -(kv[1]["copied"] + kv[1]["new"]))
        out["pages_by_mapping_kib"] = {name: {"copied": row["copied"], "new": row["new"]}
                                       for name, row in top[:12]
                                       if row["copied"] + row["new"]}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.forks", description=__doc__)
    parser.add_argument("--games", type=int, default=5, help="games at once (default 5)")
    parser.add_argument("--runs", type=int, default=2,
                        help="runs of each start, alternated (default 2)")
    parser.add_argument("--into-game", action="store_true",
                        help="start a game and play a move before measuring memory")
    parser.add_argument("--moves", type=int, default=1,
                        help="with --into-game: moves to play (Right, Enter; default 1)")
    parser.add_argument("--settle", type=float, default=3.0,
                        help="seconds to wait after the last key before measuring (default 3)")
    parser.add_argument("--forked-only", action="store_true",
                        help="no fresh processes: forked games only")
    parser.add_argument("--pages", action="store_true",
                        help="where the first forked game's pages come from, by mapping: "
                             "shared with the fork server, copied on write, or new (root)")
    parser.add_argument("--quit", action="store_true",
                        help="quit each game at its title and measure its CPU from its start "
                             "to its exit (no memory)")
    args = parser.parse_args()
    modes = ("forked",) if args.forked_only else ("forked", "fresh")
    for _ in range(args.runs):
        for mode in modes:
            print(json.dumps(asyncio.run(one_run(mode, args.games, args.into_game, args.moves,
                                                 args.pages, args.settle, args.quit))),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
