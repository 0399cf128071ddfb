"""Hard against Medium in every preset: one ``casino-tui arena`` run per preset and player count.

    nice -n 19 .venv/bin/python tools/arena_presets.py --pairs 40 --iterations 200 --seed 1 \\
        --jobs 2 --out arena_presets.jsonl

Each run is exactly the arena command printed in the table's last column (``casino-tui arena
--a hard --b medium --preset P --players N --unit round --pairs 40 --iterations 200 --seed 1``),
so every figure can be checked alone. Two players everywhere (five in ``five``); with
``--partnerships`` also four players in the presets where four play in two partnerships. The
JSON of every run is appended to ``--out`` (one line each, with its command and the result of
every pair), and a Markdown table is printed at the end; ``--table FILE...`` prints the table of
earlier ``--out`` files (``--by-preset``: a line a preset, two and four players side by side),
``--times FILE...`` takes its time column from other runs (for example with ``--budget 1``, as
in the game), and ``--compare BEFORE AFTER`` the paired change between two such files (the same
runs and seeds, so the same deals, played by two versions of the code).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from casino_tui.arena import ArenaConfig, mean_ci, run_arena, summarize
from casino_tui.engine import PRESET_ALIASES, PRESET_NAMES, Rules, State

SHORT = {full: short for short, full in reversed(PRESET_ALIASES.items())}


def short_name(preset: str) -> str:
    return SHORT.get(preset, preset)


def runs(presets: list[str], partnerships: bool, only_partnerships: bool) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for p in presets:
        rules = Rules.preset(p)
        counts = rules.player_counts
        base = 2 if 2 in counts else counts[0]
        if not only_partnerships:
            out.append((p, base))
        if (partnerships or only_partnerships) and 4 in counts:
            sides = State(rules, 4, seed=0, deal=False).sides
            if len(sides) == 2:
                out.append((p, 4))
    return out


def command(cfg: ArenaConfig) -> str:
    effort = (f"--iterations {cfg.iterations}" if cfg.iterations is not None
              else f"--budget {cfg.budget if cfg.budget is not None else 1.0:g}")
    return (f"casino-tui arena --a {cfg.a} --b {cfg.b} --preset {short_name(cfg.preset)} "
            f"--players {cfg.players} --unit {cfg.unit} --pairs {cfg.pairs} {effort} "
            f"--seed {cfg.seed}")


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| Preset | Players | a against b (round: points a pair, a minus b; game: games "
             "a won) | 95% interval | a's time a move (median / p95) |",
             "|---|---|---|---|---|"]
    for r in rows:
        cfg = r["config"]
        res = r["result"]
        lo, hi = res["ci95"]
        t = r["time_per_move"]["a"]
        players = f"{cfg['players']}" + (" (partnerships)" if cfg["players"] == 4
                                         and r["matches_per_pair"] == 2 else "")
        if cfg["unit"] == "round":
            value = f"{res['mean']:+.2f}"
            interval = f"{lo:+.2f} to {hi:+.2f}"
        else:
            value = f"wins {100 * res['win_rate']:.1f}%"
            interval = f"{100 * lo:.1f}% to {100 * hi:.1f}%"
        lines.append(f"| `{short_name(cfg['preset'])}` | {players} | {value} | {interval} | "
                     f"{1000 * t['median']:.0f} ms / {1000 * t['p95']:.0f} ms |")
    return "\n".join(lines)


def _cell(r: dict[str, Any]) -> str:
    res = r["result"]
    lo, hi = res["ci95"]
    if r["config"]["unit"] == "round":
        return f"{res['mean']:+.2f} ({lo:+.2f} to {hi:+.2f})"
    return f"{100 * res['win_rate']:.1f}% ({100 * lo:.1f}% to {100 * hi:.1f}%)"


def _time(r: dict[str, Any] | None) -> str:
    if r is None:
        return "not measured"
    t = r["time_per_move"]["a"]
    return f"{1000 * t['median']:.0f} ms / {1000 * t['p95']:.0f} ms"


def _columns(rows: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Runs by preset, then "base" (two players; five in ``five``) or "4" (partnerships); a
    later row of the same run replaces an earlier one."""
    cells: dict[str, dict[str, dict[str, Any]]] = {}
    for r in rows:
        cfg = r["config"]
        col = "4" if cfg["players"] == 4 and r["matches_per_pair"] == 2 else "base"
        cells.setdefault(cfg["preset"], {})[col] = r
    return cells


def by_preset(rows: list[dict[str, Any]], times: list[dict[str, Any]] | None = None,
              every: bool = False) -> str:
    """One line a preset: two players (five in ``five``), then four in partnerships. The time
    column is ``a``'s time a move in these runs, or with ``times`` in those runs (for example
    runs with a time budget, as in the game: two players, and four in partnerships).
    ``every``: a line for every preset, "not measured" where a run is missing."""
    cells = _columns(rows)
    timed = _columns(times) if times is not None else {}
    head = ("Hard's time a move, two / four players (median / p95)" if times is not None
            else "Hard's time a move, two players (median / p95)")
    lines = ["| Preset | Two players (`five`: five) | Four in partnerships | " + head + " |",
             "|---|---|---|---|"]
    for preset in PRESET_NAMES:
        got = cells.get(preset)
        if not got and not every:
            continue
        got = got or {}
        base = got.get("base")
        four = got.get("4")
        if four:
            four_text = _cell(four)
        else:
            four_text = "not measured" if runs([preset], True, True) else "no partnerships"
        if times is None:
            time_text = _time(base) if base else ""
        else:
            t = timed.get(preset, {})
            time_text = _time(t.get("base"))
            if runs([preset], True, True):
                time_text += "; " + _time(t.get("4"))
        lines.append(f"| `{short_name(preset)}` | {_cell(base) if base else 'not measured'} | "
                     f"{four_text} | {time_text} |")
    return "\n".join(lines)


def _key(row: dict[str, Any]) -> tuple[Any, ...]:
    cfg = row["config"]
    return (cfg["preset"], cfg["players"], cfg["unit"], cfg["pairs"], cfg["seed"],
            cfg["iterations"], cfg["a"], cfg["b"])


def compare(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> str:
    """The change of each run present in both files, pair by pair (the same deals)."""
    old = {_key(r): r for r in before}
    lines = ["| Preset | Players | Before | After | Change, paired (95% interval) |",
             "|---|---|---|---|---|"]
    for r in after:
        b = old.get(_key(r))
        if b is None or "pair_values" not in b or "pair_values" not in r:
            continue
        d = [y - x for x, y in zip(b["pair_values"], r["pair_values"], strict=True)]
        m, _sd, lo, hi = mean_ci(d)
        cfg = r["config"]
        if cfg["unit"] == "round":
            was, now = f"{b['result']['mean']:+.2f}", f"{r['result']['mean']:+.2f}"
            change = f"{m:+.2f} ({lo:+.2f} to {hi:+.2f})"
        else:
            was = f"{100 * b['result']['win_rate']:.1f}%"
            now = f"{100 * r['result']['win_rate']:.1f}%"
            change = f"{100 * m:+.1f}% ({100 * lo:+.1f}% to {100 * hi:+.1f}%)"
        lines.append(f"| `{short_name(cfg['preset'])}` | {cfg['players']} | {was} | {now} | "
                     f"{change} |")
    return "\n".join(lines)


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--a", default="hard")
    p.add_argument("--b", default="medium")
    p.add_argument("--presets", nargs="*", default=None, help="default: every preset")
    p.add_argument("--pairs", type=int, default=40)
    effort = p.add_mutually_exclusive_group()
    effort.add_argument("--iterations", type=int, default=200,
                        help="Hard's fixed effort a move, reproducible (default 200)")
    effort.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                        help="Hard's thinking time a move instead (times as in the game)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--unit", default="round", choices=("round", "game"))
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--partnerships", action="store_true",
                   help="also four players in partnerships where the preset has them")
    p.add_argument("--only-partnerships", action="store_true")
    p.add_argument("--out", type=Path, default=None, help="append each run's JSON here")
    p.add_argument("--table", type=Path, nargs="+", default=None, metavar="FILE",
                   help="only print the table of earlier --out files")
    p.add_argument("--by-preset", action="store_true",
                   help="with --table: one line a preset, two and four players side by side")
    p.add_argument("--times", type=Path, nargs="+", default=None, metavar="FILE",
                   help="with --by-preset: the time column from these --out files instead")
    p.add_argument("--every-preset", action="store_true",
                   help="with --by-preset: a line for every preset, measured or not")
    p.add_argument("--compare", type=Path, nargs=2, default=None, metavar=("BEFORE", "AFTER"),
                   help="only print the paired change between two --out files")
    ns = p.parse_args(argv)
    if ns.table is not None:
        rows = [r for path in ns.table for r in _read(path)]
        times = None if ns.times is None else [r for path in ns.times for r in _read(path)]
        print(by_preset(rows, times, ns.every_preset) if ns.by_preset else table(rows))
        return 0
    if ns.compare is not None:
        print(compare(_read(ns.compare[0]), _read(ns.compare[1])))
        return 0
    presets = ([Rules.preset(x).preset_name for x in ns.presets] if ns.presets
               else list(PRESET_NAMES))
    rows = []
    for preset, players in runs(presets, ns.partnerships, ns.only_partnerships):
        cfg = ArenaConfig(ns.a, ns.b, preset, ns.unit, ns.pairs, ns.seed, players, ns.budget,
                          None if ns.budget is not None else ns.iterations, ns.jobs)
        start = time.perf_counter()
        pairs = run_arena(cfg)
        summary = summarize(cfg, pairs, time.perf_counter() - start)
        summary["command"] = command(cfg)
        # per pair: points a minus b (rounds), or the share of its games a won (games)
        summary["pair_values"] = [p.diff if cfg.unit == "round" else
                                  sum(m.a_win for m in p.matches) / len(p.matches)
                                  for p in pairs]
        rows.append(summary)
        res = summary["result"]
        key = "mean" if cfg.unit == "round" else "win_rate"
        sys.stderr.write(f"{short_name(preset)} {players}p: {res[key]:+.2f} "
                         f"[{res['ci95'][0]:+.2f}, {res['ci95'][1]:+.2f}] "
                         f"{summary['elapsed_seconds']:.0f} s\n")
        sys.stderr.flush()
        if ns.out is not None:
            with ns.out.open("a") as f:
                f.write(json.dumps(summary) + "\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
