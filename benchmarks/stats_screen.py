"""Benchmark of the Statistics screen: ``python -m benchmarks.stats_screen``.

A data directory with a ledger of N finished games (default 10,000) is made in a temporary
folder; the app runs headless (80x24) and the time from asking for the Statistics screen (the
title's ``t``) to its first frame is measured, several times (median). The ledger is read and
the figures computed: the first time from the whole ledger, later from the figures kept with
it (:mod:`casino_tui.stats.cache`; a game's end adds one line). Target: under 0.5 s with
10,000 games. It prints figures only; the tests never assert on timings.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from casino_tui.stats import LEDGER_FILE, GameRecord, Ledger, compute
from casino_tui.stats.cache import CACHE_FILE

PRESETS = ("classic", "royal_cassino", "spade_cassino_hoyle", "pluck_cassino")
LEVELS = ("random", "easy", "medium", "hard")


def make_ledger(data: Path, games: int) -> None:
    """A ledger of ``games`` varied finished games (written at once, not appended)."""
    start = datetime(2024, 1, 1, tzinfo=UTC)
    lines = []
    for n in range(games):
        rounds = tuple(2 + (n * 7 + k * 5) % 10 for k in range(2 + n % 4))
        mine = sum(rounds)
        won = (n * 2654435761) % 100 < 55
        scores = (mine, mine - 1 - n % 5) if won else (mine, mine + 1 + n % 7)
        r = GameRecord(game=f"bench-{n:06d}", ended=start + timedelta(hours=3 * n),
                       preset=PRESETS[n % len(PRESETS)], players=2,
                       opponents=(LEVELS[n % len(LEVELS)],), seat=0, side=0,
                       result="win" if won else "loss", rounds=rounds,
                       sweeps=tuple(int((n + k) % 4 == 0) for k in range(len(rounds))),
                       scores=scores)
        lines.append(r.to_line())
    data.mkdir(parents=True, exist_ok=True)
    (data / LEDGER_FILE).write_bytes(b"".join(lines))


async def time_screen(data: Path, runs: int, games: int, *, cold: bool) -> list[float]:
    """Seconds from asking for the Statistics screen to its first frame, ``runs`` times;
    ``cold``: without the figures kept from the last time (the whole ledger is read)."""
    from casino_tui.app.app import CasinoApp
    from casino_tui.app.screens.stats import StatsScreen
    from casino_tui.saves import SaveStore, games_dir
    from casino_tui.settings import Settings

    app = CasinoApp(settings=Settings(speed="instant"), save_settings_to_disk=False,
                    store=SaveStore(games_dir(data)))
    times: list[float] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for _ in range(runs):
            if cold:
                (data / CACHE_FILE).unlink(missing_ok=True)
            t0 = time.perf_counter()
            app.show_stats()
            while not (isinstance(app.screen, StatsScreen) and app.screen.is_mounted):
                await asyncio.sleep(0)
            await pilot.pause()  # laid out and painted
            times.append(time.perf_counter() - t0)
            shown = app.screen.figures.total.played
            if shown != games:
                raise RuntimeError(f"the screen shows {shown} games, not {games}")
            app.pop_screen()
            await pilot.pause()
    return times


def time_figures(data: Path, runs: int) -> list[float]:
    """Seconds to read the whole ledger and compute the figures (no screen, no cache: the
    first time the screen opens on this ledger)."""
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        figures = compute(Ledger(data).read().records)
        if not figures.total.played:
            raise RuntimeError("the ledger has no readable game")
        out.append(time.perf_counter() - t0)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.stats_screen",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=10_000,
                        help="finished games in the ledger (default 10000)")
    parser.add_argument("--runs", type=int, default=7, help="times the screen is opened "
                                                             "(default 7)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.games < 1 or args.runs < 1:
        parser.error("--games and --runs must be at least 1")
    with tempfile.TemporaryDirectory(prefix="casino-statsbench-") as tmp:
        os.environ.setdefault("CASINO_TUI_CONFIG_DIR", str(Path(tmp) / "config"))
        data = Path(tmp) / "data"
        make_ledger(data, args.games)
        size = (data / LEDGER_FILE).stat().st_size
        figures = time_figures(data, args.runs)
        cold = asyncio.run(time_screen(data, args.runs, args.games, cold=True))
        warm = asyncio.run(time_screen(data, args.runs, args.games, cold=False))
    result = {"games": args.games, "ledger_bytes": size, "runs": args.runs,
              "figures_ms_median": round(statistics.median(figures) * 1000, 1),
              "screen_first_ms_median": round(statistics.median(cold) * 1000, 1),
              "screen_first_ms_max": round(max(cold) * 1000, 1),
              "screen_ms_median": round(statistics.median(warm) * 1000, 1),
              "screen_ms_max": round(max(warm) * 1000, 1)}
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"Statistics screen with {args.games} games in the ledger ({size / 1e6:.1f} MB), "
          f"median of {args.runs}:")
    print(f"  read the whole ledger, compute the figures  {result['figures_ms_median']:7.1f} ms")
    print(f"  open the screen, first time (whole ledger)  "
          f"{result['screen_first_ms_median']:7.1f} ms   "
          f"(max {result['screen_first_ms_max']:.1f} ms)")
    print(f"  open the screen (figures kept, to frame)    {result['screen_ms_median']:7.1f} ms   "
          f"(max {result['screen_ms_max']:.1f} ms; target < 500 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
