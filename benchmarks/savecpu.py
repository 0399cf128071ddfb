"""The cost of one autosave: ``python -m benchmarks.savecpu [--games 12] [--preset classic]``.

A served game autosaves twice a play (after the player's move and after the computer's), so
what one :meth:`SaveStore.autosave` costs is paid about 2 x 200 times every 2 s at 200
players. This plays seeded games of two players (a person and a medium computer, as a solo
player's games are) with random legal moves, through the real :class:`SaveStore` in a
throwaway folder (on the same disk as ``--dir``, default the system's temporary folder),
autosaving after the deal, after every move and after each new round, as the app does. Every
save is timed, in CPU time of the saving thread (``time.thread_time_ns``: what it costs the
game's process; the kernel's own journal work is not counted) and in wall time, and split
into the parts of a save:

* ``encode``: the game as the file's bytes (``_game_to_bytes``: the engine's record, then the
  JSON text);
* ``write``: the temporary file created and written (``os.open`` of ``.<id>.json.tmp``,
  ``_write_all``);
* ``fsync``: the file's fsync; ``dirsync``: the folder's (``_fsync_dir``);
* ``backup``: the previous version kept as ``<id>.json.bak`` (``_keep_backup``);
* ``rename``: the new version renamed over the game (``os.replace``);
* ``other``: the rest (the lock, the checks, the verdict cache's SHA-256, ...).

Each part's time is its own (a part inside another is taken out of the outer one). Parts are
found by name, so the tool measures any version of the save code that keeps these names; a
part that a version does not have reads 0.

Timing the parts costs about 0.15 ms a save, more than some parts: so each game is played
twice, first as it is, for the total CPU and wall time of a save, then with every part
timed. It prints, for several points of a game (the first save, saves early and late in a
deal, the last save of a round, the first of the next, later rounds), the median over the
saves of ``--games`` games of each part's CPU microseconds, the total CPU and wall time, and
the file's size; then the same over every save, and the means. ``--json FILE`` also writes
the figures. A measuring tool, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from casino_tui.engine import Rules, State
from casino_tui.saves import SaveStore, Seat
from casino_tui.saves import files as save_files
from casino_tui.saves import store as save_store

SEATS = (Seat.human("Ann"), Seat.computer("Bob", "medium"))
PARTS = ("encode", "write", "fsync", "dirsync", "backup", "rename", "other")


class Clock:
    """CPU and wall time of named parts, each counted without the parts inside it."""

    def __init__(self) -> None:
        self.cpu: dict[str, int] = defaultdict(int)
        self.wall: dict[str, int] = defaultdict(int)
        self._stack: list[list[int]] = []  # per open part: [cpu of children, wall of children]

    def reset(self) -> None:
        self.cpu.clear()
        self.wall.clear()

    @contextmanager
    def part(self, name: str) -> Iterator[None]:
        self._stack.append([0, 0])
        c0, w0 = time.thread_time_ns(), time.perf_counter_ns()
        try:
            yield
        finally:
            dc, dw = time.thread_time_ns() - c0, time.perf_counter_ns() - w0
            inner_c, inner_w = self._stack.pop()
            self.cpu[name] += dc - inner_c
            self.wall[name] += dw - inner_w
            if self._stack:
                self._stack[-1][0] += dc
                self._stack[-1][1] += dw

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            with self.part(name):
                return fn(*args, **kwargs)
        return timed


def instrument(clock: Clock) -> Callable[[], None]:
    """Wrap the parts of a save, by name, wherever the save code looks them up; returns what
    puts them back as they were."""
    undo: list[tuple[Any, str, Any]] = []

    def patch(owner: Any, name: str, value: Any) -> None:
        undo.append((owner, name, getattr(owner, name)))
        setattr(owner, name, value)

    for module in (save_store, save_files):
        for name, part in (("_game_to_bytes", "encode"), ("_fsync_dir", "dirsync"),
                           ("_write_all", "write")):
            if hasattr(module, name):
                patch(module, name, clock.wrap(part, getattr(module, name)))
    if hasattr(save_files._GameFiles, "_keep_backup"):
        patch(save_files._GameFiles, "_keep_backup",
              clock.wrap("backup", save_files._GameFiles._keep_backup))
    real_open, real_fsync, real_replace = os.open, os.fsync, os.replace

    def opened(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if str(path).endswith(".json.tmp") and flags & os.O_CREAT:
            with clock.part("write"):
                return real_open(path, flags, *args, **kwargs)
        return real_open(path, flags, *args, **kwargs)

    def replaced(src: Any, dst: Any, **kwargs: Any) -> None:
        name = "rename" if str(dst).endswith(".json") else "backup"
        with clock.part(name):
            real_replace(src, dst, **kwargs)

    patch(os, "open", opened)
    patch(os, "fsync", clock.wrap("fsync", real_fsync))
    patch(os, "replace", replaced)

    def restore() -> None:
        for owner, name, value in reversed(undo):
            setattr(owner, name, value)
    return restore


def play_game(store: SaveStore, clock: Clock, seed: int, preset: str,
              on_save: Callable[[str, State, int, int, dict[str, int], dict[str, int]], None],
              ) -> None:
    """A seeded game of random moves, autosaved as the app does; ``on_save`` gets each save's
    point, its CPU and wall times per part (``total`` included) and the file's size."""
    rng = random.Random(seed)
    state = State(Rules.preset(preset), len(SEATS), seed)
    slot = store.new_game(SEATS)

    def save(point: str) -> None:
        clock.reset()
        c0, w0 = time.thread_time_ns(), time.perf_counter_ns()
        store.autosave(slot, state)
        cpu, wall = dict(clock.cpu), dict(clock.wall)
        cpu["total"] = time.thread_time_ns() - c0
        wall["total"] = time.perf_counter_ns() - w0
        cpu["other"] = cpu["total"] - sum(v for k, v in cpu.items() if k != "total")
        wall["other"] = wall["total"] - sum(v for k, v in wall.items() if k != "total")
        on_save(point, state, len(state.history), slot.path.stat().st_size, cpu, wall)

    save("first save (the deal)")
    in_deal = 0
    while not state.is_game_over:
        if state.is_round_over:
            state.next_round()
            in_deal = 0
            save("a new round dealt")
            continue
        hands_before = sum(len(h) for h in state.hands)
        legal = [m for m in state.legal_moves() if m.kind != "claim"] or state.legal_moves()
        state.apply(rng.choice(legal))
        in_deal += 1
        if state.is_round_over:
            point = "the round's last move"
        elif sum(len(h) for h in state.hands) > hands_before:
            point = "a new deal"  # the hands were dealt again
            in_deal = 0
        elif in_deal <= 3:
            point = "early in a deal"
        else:
            point = "late in a deal"
        if state.round_no >= 3 and point in ("early in a deal", "late in a deal"):
            point = "round 3 or later"
        save(point)
    store.close(slot)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.savecpu",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=12, help="games played (default 12)")
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--seed", type=int, default=1, help="the first game's seed")
    parser.add_argument("--dir", default=None, help="where the throwaway folder is made")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)

    clock = Clock()
    Rows = dict[str, list[tuple[dict[str, int], dict[str, int], int, int]]]
    plain: Rows = defaultdict(list)  # the games played as they are: the totals
    rows: Rows = defaultdict(list)  # the same games with each part timed: the parts

    def collect(into: Rows) -> Callable[[str, State, int, int, dict[str, int],
                                          dict[str, int]], None]:
        def on_save(point: str, state: State, moves: int, size: int, cpu: dict[str, int],
                    wall: dict[str, int]) -> None:
            into[point].append((cpu, wall, size, moves))
            into["every save"].append((cpu, wall, size, moves))
        return on_save

    with tempfile.TemporaryDirectory(prefix="savecpu-", dir=args.dir) as tmp:
        # timing the parts costs more than some of them (about 0.15 ms a save): each game is
        # played as it is, for the totals, and then again with its parts timed
        for g in range(args.games):
            play_game(SaveStore(Path(tmp) / f"plain-{g}"), clock, args.seed + g, args.preset,
                      collect(plain))
            restore = instrument(clock)
            try:
                play_game(SaveStore(Path(tmp) / f"parts-{g}"), clock, args.seed + g,
                          args.preset, collect(rows))
            finally:
                restore()

    load = os.getloadavg()
    import casino_tui

    print(f"savecpu: {args.games} games of {args.preset} ({len(rows['every save'])} saves), "
          f"casino_tui from {Path(casino_tui.__file__).parent.parent}, "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print("median microseconds per save: CPU of the saving thread per part (games timed part "
          "by part), then the total CPU and wall time of a save (the same games, untimed)")
    head = f"{'point':<24}{'saves':>6}{'moves':>6}{'bytes':>7}" + "".join(
        f"{p:>8}" for p in PARTS) + f"{'cpu':>8}{'wall':>8}"
    print(head)
    out: dict[str, Any] = {"load": load, "games": args.games, "points": {}}
    order = ["first save (the deal)", "early in a deal", "late in a deal", "a new deal",
             "the round's last move", "a new round dealt", "round 3 or later", "every save"]
    for point in order:
        found = rows.get(point)
        if not found:
            continue
        med = {p: statistics.median(c.get(p, 0) for c, _, _, _ in found) / 1000 for p in PARTS}
        cpu = statistics.median(c["total"] for c, _, _, _ in plain[point]) / 1000
        wall = statistics.median(w["total"] for _, w, _, _ in plain[point]) / 1000
        size = statistics.median(s for _, _, s, _ in found)
        moves = statistics.median(m for _, _, _, m in found)
        print(f"{point:<24}{len(found):>6}{moves:>6.0f}{size:>7.0f}" + "".join(
            f"{med[p]:>8.0f}" for p in PARTS) + f"{cpu:>8.0f}{wall:>8.0f}")
        out["points"][point] = {"saves": len(found), "cpu_us": med, "total_cpu_us": cpu,
                                "total_wall_us": wall, "bytes": size, "moves": moves}
    every = rows["every save"]
    mean_cpu = statistics.fmean(c["total"] for c, _, _, _ in plain["every save"]) / 1000
    print(f"mean CPU per save {mean_cpu:.0f} us (timed part by part: "
          f"{statistics.fmean(c['total'] for c, _, _, _ in every) / 1000:.0f}); parts' means: "
          + ", ".join(f"{p} {statistics.fmean(c.get(p, 0) for c, _, _, _ in every) / 1000:.0f}"
                      for p in PARTS))
    out["mean_cpu_us"] = mean_cpu
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
