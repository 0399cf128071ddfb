"""The arena command: mirrored pairs, results, JSON shape, reproducibility, bad arguments."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from casino_tui import arena

ROOT = Path(__file__).resolve().parent.parent


def _run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    code = arena.main([*args, "--json"])
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)


def test_round_results_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    data = _run_json(capsys, "--a", "medium", "--b", "random", "--pairs", "3", "--seed", "2")
    assert data["config"] == {"a": "medium", "b": "random", "preset": "classic", "unit": "round",
                              "pairs": 3, "seed": 2, "players": 2, "budget": None,
                              "iterations": None}
    assert data["matches_per_pair"] == 2 and data["matches"] == 6
    res = data["result"]
    lo, hi = res["ci95"]
    assert lo <= res["mean"] <= hi
    assert res["mean"] > 0  # medium beats random on these deals
    for side in ("a", "b"):
        t = data["time_per_move"][side]
        assert t["moves"] == 6 * 24
        assert 0 <= t["median"] <= t["p95"] <= t["max"]


def test_game_unit_counts_wins_with_a_wilson_interval(capsys: pytest.CaptureFixture[str]) -> None:
    data = _run_json(capsys, "--a", "easy", "--b", "random", "--unit", "game", "--pairs", "2",
                     "--preset", "classic")
    res = data["result"]
    assert res["a_wins"] + res["b_wins"] + res["draws"] == 4
    assert res["win_rate"] == pytest.approx((res["a_wins"] + 0.5 * res["draws"]) / 4)
    lo, hi = res["ci95"]
    assert 0 <= lo <= res["win_rate"] <= hi <= 1
    assert res["rounds_per_game"] >= 1


def test_same_seed_and_iterations_give_identical_results(
        capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--a", "hard", "--b", "medium", "--pairs", "1", "--iterations", "3", "--seed", "5")
    first = _run_json(capsys, *args)
    second = _run_json(capsys, *args)
    for d in (first, second):
        del d["time_per_move"], d["elapsed_seconds"]
    assert first == second
    other = _run_json(capsys, "--a", "hard", "--b", "medium", "--pairs", "1", "--iterations", "3",
                      "--seed", "6")
    del other["time_per_move"], other["elapsed_seconds"]
    assert other["result"] != first["result"]


def test_partnerships_and_three_players(capsys: pytest.CaptureFixture[str]) -> None:
    four = _run_json(capsys, "--a", "medium", "--b", "easy", "--players", "4", "--pairs", "1")
    assert four["matches_per_pair"] == 2
    assert four["time_per_move"]["a"]["moves"] == four["time_per_move"]["b"]["moves"] == 2 * 24
    three = _run_json(capsys, "--a", "medium", "--b", "easy", "--players", "3", "--pairs", "1",
                      "--preset", "royal")
    assert three["matches_per_pair"] == 3  # a sits in each seat once
    assert three["time_per_move"]["a"]["moves"] == 3 * 16


def test_table_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert arena.main(["--a", "easy", "--b", "random", "--pairs", "1"]) == 0
    out = capsys.readouterr().out
    assert "points/pair of rounds" in out and "time/move" in out and "95%" in out


@pytest.mark.parametrize(("args", "message"), [
    (["--a", "expert", "--b", "easy"], "unknown level"),
    (["--b", "easy"], "--a"),
    (["--a", "easy", "--b", "easy", "--preset", "nope"], "unknown preset"),
    (["--a", "easy", "--b", "easy", "--players", "7"], "players"),
    (["--a", "easy", "--b", "easy", "--pairs", "0"], "--pairs"),
    (["--a", "easy", "--b", "easy", "--budget", "-1"], "--budget"),
    (["--a", "easy", "--b", "easy", "--budget", "1", "--iterations", "5"], "not allowed"),
    (["--a", "easy", "--b", "easy", "--unit", "deal"], "--unit"),
    (["--a", "easy", "--b", "easy", "--pairs", "many"], "--pairs"),
])
def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str], args: list[str],
                              message: str) -> None:
    assert arena.main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "usage" in err


def test_statistics_helpers() -> None:
    m, sd, lo, hi = arena.mean_ci([1.0, 2.0, 3.0, 4.0])
    assert m == 2.5 and lo < m < hi and hi - m == pytest.approx(1.96 * sd / 2)
    lo, hi = arena.wilson(80, 100)
    assert lo == pytest.approx(0.7112, abs=1e-3) and hi == pytest.approx(0.8666, abs=1e-3)
    assert arena.percentile([1, 2, 3, 4, 5], 0.5) == 3
    assert arena.percentile([1, 2, 3, 4, 5], 0.95) == pytest.approx(4.8)


def test_module_entry_point() -> None:
    ok = subprocess.run([sys.executable, "-m", "casino_tui.arena", "--a", "random", "--b",
                         "random", "--pairs", "1", "--json"], capture_output=True, text=True,
                        timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["matches"] == 2
    bad = subprocess.run([sys.executable, "-m", "casino_tui.arena", "--a", "random"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--b" in bad.stderr


def test_presets_table_with_the_times_of_budgeted_runs(tmp_path: Path) -> None:
    """tools/arena_presets.py: runs with a fixed effort give the results, runs with a time
    budget (as in the game) the time column, two players and four in partnerships."""
    tool = [sys.executable, str(ROOT / "tools" / "arena_presets.py"), "--a", "hard", "--b",
            "hard-v1", "--presets", "classic", "--pairs", "1", "--partnerships"]
    fixed, timed = tmp_path / "fixed.jsonl", tmp_path / "timed.jsonl"
    for extra in (["--iterations", "2", "--out", str(fixed)],
                  ["--budget", "0.05", "--out", str(timed)]):
        ok = subprocess.run(tool + extra, capture_output=True, text=True, timeout=300)
        assert ok.returncode == 0, ok.stderr
    rows = [json.loads(line) for line in fixed.read_text().splitlines()]
    assert [(r["config"]["players"], r["config"]["iterations"], r["config"]["budget"])
            for r in rows] == [(2, 2, None), (4, 2, None)]
    assert rows[0]["command"].endswith("--pairs 1 --iterations 2 --seed 1")
    budgeted = [json.loads(line) for line in timed.read_text().splitlines()]
    assert budgeted[0]["command"].endswith("--pairs 1 --budget 0.05 --seed 1")
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "arena_presets.py"), "--table",
                          str(fixed), "--by-preset", "--times", str(timed)],
                         capture_output=True, text=True, timeout=120).stdout
    (line,) = [x for x in out.splitlines() if x.startswith("| `classic`")]
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert "two / four players" in out and len(cells) == 4
    times = cells[3].split("; ")
    assert len(times) == 2 and all(t.endswith(" ms") and "/" in t for t in times)
    assert "ms" not in cells[1] and "ms" not in cells[2]
    every = subprocess.run([sys.executable, str(ROOT / "tools" / "arena_presets.py"), "--table",
                            str(fixed), "--by-preset", "--every-preset"],
                           capture_output=True, text=True, timeout=120).stdout
    assert "| `royal` | not measured | not measured |" in every  # a run that is missing
    assert "| `danish` | not measured | no partnerships |" in every
