"""The served round's CPU tool (python -m benchmarks.servedcpu): its collector hook counts each
process's collections and their CPU in a file of its own (a fork's apart from its parent's),
and sets the fork server's collector as asked; its summary adds a round's phases up."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from benchmarks import servedcpu


def _hook(tmp_path: Path, config: dict[str, object]) -> dict[str, str]:
    hook = tmp_path / "hook"
    hook.mkdir()
    shutil.copy(servedcpu.HOOK_DIR / "sitecustomize.py", hook)
    (hook / "gchook.json").write_text(json.dumps(config))
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(hook), *filter(None, [os.environ.get("PYTHONPATH")])])}


def test_the_hook_counts_each_process_s_collections_apart(tmp_path: Path) -> None:
    figures = tmp_path / "gc"
    figures.mkdir()
    code = ("import gc, os, sys\n"
            "gc.collect(0); gc.collect(2)\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    gc.collect(1); os._exit(0)\n"
            "os.waitpid(pid, 0)\n"
            "print(pid)\n")
    out = subprocess.run([sys.executable, "-c", code], env=_hook(tmp_path, {"dir": str(figures)}),
                         capture_output=True, text=True, check=True, timeout=60)
    child = out.stdout.split()[-1]
    lines = {p.name: [int(x) for x in p.read_text().split()] for p in figures.iterdir()}
    assert len(lines) == 2 and child in lines
    ns, *counts = lines.pop(child)
    assert ns > 0 and counts == [0, 1, 0]  # only its own collection
    [(ns, *counts)] = lines.values()  # the parent's
    assert ns > 0 and counts[0] >= 1 and counts[2] >= 1


def test_the_hook_sets_the_games_collector_as_asked(tmp_path: Path) -> None:
    code = ("import gc\n"
            "from casino_tui.serve import forkserver\n"
            "forkserver.collect_sooner()\n"
            "print(list(gc.get_threshold()), gc.get_freeze_count() > 0)\n")
    env = _hook(tmp_path, {"thresholds": [900, 11, 12], "freeze": True})
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.split("\n")[0] == "[900, 11, 12] True"


def test_a_round_is_summed_up_by_phase() -> None:
    def step(game: int, gc: int = 0) -> dict[str, int]:
        return {"game": game * 1_000_000, "gc": gc * 1_000_000, "server": 1_000_000,
                "server_user": 0, "server_system": 0, "game_user": 0, "game_system": 0,
                "pool": 0, "client": 2_000_000,
                "gc0": 1, "gc1": 0, "gc2": 0}

    runs = [{"login": [step(50)], "play": [step(20, 2), step(30, 4)],
             "memory_kb": [{"pss": 30_000, "private": 21_000}]}] * 2  # type: ignore[dict-item]
    figures = servedcpu.summarise(runs)  # type: ignore[arg-type]
    assert figures["play"]["per_round"] == 2
    assert figures["play"]["game_ms"] == 25.0  # a play's mean
    assert figures["play"]["game_ms_round"] == 50.0  # the plays of a round
    assert figures["play"]["gc_ms_round"] == 6.0
    assert figures["round_total"]["game_ms"] == 100.0
    assert figures["round_total"]["client_ms"] == 6.0
    assert figures["memory_kb_at_round_end"] == {"pss": 30_000, "private": 21_000}
