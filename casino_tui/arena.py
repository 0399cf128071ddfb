"""Arena: two computer levels play mirrored deals and the result is measured.

``casino-tui arena --a hard --b medium --preset classic --unit round --pairs 200 --seed 1``

Every deal is played twice with the seats swapped (with more than two sides, once with ``a`` in
each side's seats), so luck of the cards cancels. ``--unit round`` reports the points ``a`` makes
minus the points ``b`` makes per pair of rounds, with a 95% confidence interval; ``--unit game``
plays whole games to the preset's end and reports the share of games ``a`` wins with a Wilson
interval. The time each side takes per move (median and 95th percentile) is always reported.
Four players play partnerships (seats 0 and 2 are ``a``, seats 1 and 3 are ``b``, then swapped).
With ``--iterations`` instead of ``--budget`` the results are reproducible from the seed.

A command above the computer players (:mod:`casino_tui.ai`) that it measures; rich draws its
progress bar and its table of results.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import signal
import statistics
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .ai import ARENA_LEVELS, LEVELS, choose_move
from .engine import Rules, RulesError, State, resolve_preset_name

MAX_ROUNDS_PER_GAME = 60


class ArenaUsageError(Exception):
    """Bad command-line arguments."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise ArenaUsageError(message)

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        if message:
            sys.stderr.write(message)
        raise SystemExit(status)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="casino-tui arena",
                description="Play two computer levels against each other on mirrored deals.")
    p.add_argument("--a", required=True, metavar="LEVEL",
                   help=f"first level ({', '.join(LEVELS + ARENA_LEVELS)})")
    p.add_argument("--b", required=True, metavar="LEVEL", help="second level")
    p.add_argument("--preset", default="classic", help="rules preset (default classic)")
    p.add_argument("--unit", default="round", choices=("round", "game"),
                   help="score single rounds or whole games (default round)")
    p.add_argument("--pairs", type=int, default=100, help="mirrored pairs of deals (default 100)")
    p.add_argument("--seed", type=int, default=1, help="seed of the deals and the players")
    p.add_argument("--players", type=int, default=None, help="number of players (default 2)")
    effort = p.add_mutually_exclusive_group()
    effort.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                        help="Hard's thinking time per move (default 1 s)")
    effort.add_argument("--iterations", type=int, default=None, metavar="N",
                        help="Hard's fixed search effort per move (reproducible)")
    p.add_argument("--jobs", type=int, default=1,
                   help="pairs played at once in worker processes (default 1)")
    p.add_argument("--json", action="store_true", help="print the results as one JSON object")
    return p


@dataclass(frozen=True)
class ArenaConfig:
    a: str
    b: str
    preset: str
    unit: str
    pairs: int
    seed: int
    players: int
    budget: float | None
    iterations: int | None
    jobs: int = 1


def parse_config(argv: Sequence[str]) -> tuple[ArenaConfig, bool]:
    ns = build_parser().parse_args(list(argv))
    for name in ("a", "b"):
        level = getattr(ns, name)
        if level not in LEVELS and level not in ARENA_LEVELS:
            raise ArenaUsageError(f"--{name}: unknown level {level!r} "
                                  f"(choose from {', '.join(LEVELS + ARENA_LEVELS)})")
    try:
        preset = resolve_preset_name(ns.preset)
    except RulesError as e:
        raise ArenaUsageError(f"--preset: {e}") from None
    rules = Rules.preset(preset)
    counts = rules.player_counts
    players = ns.players
    if players is None:
        players = 2 if 2 in counts else counts[0]
    if players not in counts:
        raise ArenaUsageError(f"--players: {preset} is played by "
                              f"{', '.join(map(str, counts))} players, not {players}")
    if ns.pairs < 1:
        raise ArenaUsageError("--pairs must be at least 1")
    if ns.budget is not None and not (ns.budget > 0 and math.isfinite(ns.budget)):
        raise ArenaUsageError("--budget must be a positive number of seconds")
    if ns.iterations is not None and ns.iterations < 1:
        raise ArenaUsageError("--iterations must be at least 1")
    if ns.jobs < 1:
        raise ArenaUsageError("--jobs must be at least 1")
    cfg = ArenaConfig(ns.a, ns.b, preset, ns.unit, ns.pairs, ns.seed, players, ns.budget,
                      ns.iterations, ns.jobs)
    return cfg, bool(ns.json)


# ------------------------------------------------------------------ playing
@dataclass
class MatchResult:
    """One deal (or game) played with one seating."""

    a_points: float
    b_points: float
    a_win: float  # 1 win, 0 loss, 0.5 draw (games)
    rounds: int
    a_times: list[float] = field(default_factory=list)
    b_times: list[float] = field(default_factory=list)


@dataclass
class PairResult:
    index: int
    matches: list[MatchResult]

    @property
    def diff(self) -> float:
        return sum(m.a_points - m.b_points for m in self.matches)


def _sides_of(rules: Rules, players: int) -> list[list[int]]:
    return State(rules, players, seed=0, deal=False).sides


def play_match(cfg: ArenaConfig, pair: int, mirror: int) -> MatchResult:
    """Play deal ``pair`` with ``a`` in side ``mirror`` (2 sides: mirror 1 swaps the seats)."""
    rules = Rules.preset(cfg.preset)
    state = State(rules, cfg.players, seed=f"arena/{cfg.seed}/{pair}")
    a_sides = {mirror}
    level = {s: (cfg.a if state.side_of[s] in a_sides else cfg.b)
             for s in range(cfg.players)}
    is_a = {s: state.side_of[s] in a_sides for s in range(cfg.players)}
    move_seed = random.Random(f"arena/{cfg.seed}/{pair}/{mirror}").getrandbits(31)
    res = MatchResult(0.0, 0.0, 0.0, 0)
    k = 0
    while not state.is_game_over:
        if state.is_round_over:
            if cfg.unit == "round" or state.round_no >= MAX_ROUNDS_PER_GAME:
                break
            state.next_round()
            continue
        seat = state.current_player
        assert seat is not None
        view = state.view(seat)
        t0 = time.perf_counter()
        move = choose_move(view, level[seat], seed=move_seed + k, budget=cfg.budget,
                           iterations=cfg.iterations)
        dt = time.perf_counter() - t0
        (res.a_times if is_a[seat] else res.b_times).append(dt)
        state.apply(move)
        k += 1
    n_sides = len(state.sides)
    a_pts = [state.scores[i] for i in range(n_sides) if i in a_sides]
    b_pts = [state.scores[i] for i in range(n_sides) if i not in a_sides]
    res.a_points = sum(a_pts) / len(a_pts)
    res.b_points = sum(b_pts) / len(b_pts)
    res.rounds = state.round_no
    if state.is_game_over and state.winner is not None:
        res.a_win = 1.0 if state.winner in a_sides else 0.0
    else:
        res.a_win = 0.5 if cfg.unit == "game" else 0.0
    return res


def play_pair(cfg: ArenaConfig, pair: int) -> PairResult:
    n_sides = len(_sides_of(Rules.preset(cfg.preset), cfg.players))
    return PairResult(pair, [play_match(cfg, pair, m) for m in range(n_sides)])


# ------------------------------------------------------------------ statistics
def mean_ci(xs: Sequence[float]) -> tuple[float, float, float, float]:
    """Mean, standard deviation and a 95% confidence interval of the mean."""
    n = len(xs)
    m = statistics.fmean(xs)
    sd = statistics.stdev(xs) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n) if n > 1 else math.inf
    return m, sd, m - half, m + half


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(xs: Sequence[float], q: float) -> float:
    if not xs:
        return 0.0
    s = sorted(xs)
    pos = (len(s) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def _timing(times: Sequence[float]) -> dict[str, Any]:
    return {"moves": len(times), "median": percentile(times, 0.5), "p95": percentile(times, 0.95),
            "mean": statistics.fmean(times) if times else 0.0,
            "max": max(times) if times else 0.0}


def summarize(cfg: ArenaConfig, pairs: Sequence[PairResult], elapsed: float) -> dict[str, Any]:
    matches = [m for p in pairs for m in p.matches]
    out: dict[str, Any] = {
        "config": {k: v for k, v in asdict(cfg).items() if k != "jobs"},
        "matches_per_pair": len(pairs[0].matches) if pairs else 0,
        "matches": len(matches),
    }
    if cfg.unit == "round":
        diffs = [p.diff for p in pairs]
        m, sd, lo, hi = mean_ci(diffs)
        out["result"] = {
            "measure": ("points per pair of rounds, a minus b" if len(pairs[0].matches) == 2
                        else f"points per set of {len(pairs[0].matches)} rounds (a in each "
                             "seat), a minus the mean of b"),
            "mean": m, "sd": sd, "ci95": [lo, hi],
            "a_points_per_round": statistics.fmean(x.a_points for x in matches),
            "b_points_per_round": statistics.fmean(x.b_points for x in matches),
        }
    else:
        wins = sum(1 for x in matches if x.a_win == 1.0)
        draws = sum(1 for x in matches if x.a_win == 0.5)
        losses = len(matches) - wins - draws
        score = wins + 0.5 * draws
        lo, hi = wilson(score, len(matches))
        out["result"] = {
            "measure": "share of games won by a",
            "a_wins": wins, "b_wins": losses, "draws": draws,
            "win_rate": score / len(matches) if matches else 0.0, "ci95": [lo, hi],
            "rounds_per_game": statistics.fmean(x.rounds for x in matches),
        }
    out["time_per_move"] = {
        "a": _timing([t for x in matches for t in x.a_times]),
        "b": _timing([t for x in matches for t in x.b_times]),
    }
    out["elapsed_seconds"] = elapsed
    return out


# ------------------------------------------------------------------ running
def run_arena(cfg: ArenaConfig,
              on_pair: Callable[[PairResult], None] | None = None) -> list[PairResult]:
    results: dict[int, PairResult] = {}
    if cfg.jobs == 1:
        for i in range(cfg.pairs):
            r = play_pair(cfg, i)
            results[i] = r
            if on_pair:
                on_pair(r)
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        ctx = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(max_workers=cfg.jobs, mp_context=ctx)
        try:
            futs = [pool.submit(play_pair, cfg, i) for i in range(cfg.pairs)]
            for f in as_completed(futs):
                r = f.result()
                results[r.index] = r
                if on_pair:
                    on_pair(r)
        except BaseException:
            # interrupted: do not wait for the games in progress
            pool.shutdown(wait=False, cancel_futures=True)
            for child in multiprocessing.active_children():
                child.terminate()
            raise
        pool.shutdown()
    return [results[i] for i in range(cfg.pairs)]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 10 else f"{seconds:.1f} s"


def _render(cfg: ArenaConfig, summary: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    res = summary["result"]
    effort = (f"{cfg.iterations} iterations" if cfg.iterations is not None
              else f"{cfg.budget if cfg.budget is not None else 1.0:g} s budget")
    if not {"hard", *ARENA_LEVELS} & {cfg.a, cfg.b}:
        effort = "no search"
    title = (f"{cfg.a} (a) vs {cfg.b} (b): {cfg.preset}, {cfg.players} players, "
             f"{cfg.pairs} pairs, seed {cfg.seed}, {effort}, unit {cfg.unit}")
    t = Table(title=title, title_justify="left")
    t.add_column("measure")
    t.add_column("value", justify="right")
    t.add_column("95% interval", justify="right")
    if cfg.unit == "round":
        k = summary["matches_per_pair"]
        label = "points/pair of rounds, a-b" if k == 2 else f"points/set of {k} rounds, a-b"
        t.add_row(label, f"{res['mean']:+.2f}",
                  f"[{res['ci95'][0]:+.2f}, {res['ci95'][1]:+.2f}]")
        t.add_row("points per round, a / b",
                  f"{res['a_points_per_round']:.2f} / {res['b_points_per_round']:.2f}", "")
    else:
        t.add_row("games won by a", f"{100 * res['win_rate']:.1f}%",
                  f"[{100 * res['ci95'][0]:.1f}%, {100 * res['ci95'][1]:.1f}%]")
        t.add_row("wins a / b / draws", f"{res['a_wins']} / {res['b_wins']} / {res['draws']}",
                  "")
        t.add_row("rounds per game", f"{res['rounds_per_game']:.2f}", "")
    for side, level in (("a", cfg.a), ("b", cfg.b)):
        tm = summary["time_per_move"][side]
        t.add_row(f"time/move {side} ({level})", f"median {_ms(tm['median'])}",
                  f"p95 {_ms(tm['p95'])}, {tm['moves']} moves")
    t.add_row("elapsed", f"{summary['elapsed_seconds']:.1f} s", "")
    Console(soft_wrap=True).print(t)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        cfg, as_json = parse_config(argv)
    except ArenaUsageError as e:
        sys.stderr.write(f"casino-tui arena: error: {e}\n"
                         "usage: casino-tui arena --a LEVEL --b LEVEL [--preset NAME] "
                         "[--unit round|game] [--pairs N] [--seed N] [--players N] "
                         "[--budget SECONDS | --iterations N] [--jobs N] [--json]\n")
        return 2
    except SystemExit as e:  # --help
        return int(e.code or 0)
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    def _terminate(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminate)
    start = time.perf_counter()
    diffs: list[float] = []
    interactive = sys.stderr.isatty()
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[status]}"), TimeElapsedColumn(),
                  TimeRemainingColumn(), console=Console(stderr=True),
                  transient=False, disable=not interactive) as progress:
        task = progress.add_task(f"{cfg.a} vs {cfg.b}", total=cfg.pairs, status="")

        def on_pair(r: PairResult) -> None:
            if cfg.unit == "round":
                diffs.append(r.diff)
                status = f"a-b {statistics.fmean(diffs):+.2f}/pair"
            else:
                diffs.extend(m.a_win for m in r.matches)
                status = f"a wins {100 * statistics.fmean(diffs):.0f}%"
            progress.update(task, advance=1, status=status)
            if not interactive:
                done = len(diffs) if cfg.unit == "round" else len(diffs) // max(
                    1, len(r.matches))
                step = max(1, cfg.pairs // 20)
                if done % step == 0 or done == cfg.pairs:
                    sys.stderr.write(f"{cfg.a} vs {cfg.b}: {done}/{cfg.pairs} pairs, {status}, "
                                     f"{time.perf_counter() - start:.0f} s\n")
                    sys.stderr.flush()

        try:
            pairs = run_arena(cfg, on_pair)
        except KeyboardInterrupt:
            sys.stderr.write("casino-tui arena: interrupted\n")
            return 130
    summary = summarize(cfg, pairs, time.perf_counter() - start)
    if as_json:
        sys.stdout.write(json.dumps(summary) + "\n")
    else:
        _render(cfg, summary)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
