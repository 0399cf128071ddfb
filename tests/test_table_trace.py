"""The tables' debug trace (casino_tui.table.trace) and the tool that reads it
(benchmarks.tracetables): off without its variable, one JSON line a step with it, passed on to
a server's games, and a move followed from one key to the other screen."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import tracetables
from casino_tui.serve.pty_session import child_environment
from casino_tui.table import trace


@pytest.fixture
def fresh_trace(monkeypatch: pytest.MonkeyPatch) -> object:
    trace.reset()
    yield
    monkeypatch.delenv(trace.TRACE_ENV, raising=False)
    trace.reset()


def test_off_without_the_variable_and_one_line_a_step_with_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_trace: object) -> None:
    out = tmp_path / "trace.jsonl"
    monkeypatch.delenv(trace.TRACE_ENV, raising=False)
    assert not trace.enabled()
    trace.note("key", "t1", 3, who="Ann")
    assert not out.exists()

    monkeypatch.setenv(trace.TRACE_ENV, str(out))
    trace.reset()
    assert trace.enabled()
    trace.note("key", "t1", 3, who="Ann")
    trace.note("recv", "t1", 4, who="Bob")
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(x["stage"], x["table"], x["n"], x["who"]) for x in lines] == [
        ("key", "t1", 3, "Ann"), ("recv", "t1", 4, "Bob")]
    assert lines[0]["t"] <= lines[1]["t"] and lines[0]["cpu"] <= lines[1]["cpu"]


def test_a_servers_games_get_the_variable_and_nothing_else_of_its_environment(
        tmp_path: Path) -> None:
    server = {trace.TRACE_ENV: "/tmp/x.trace", "SECRET_THING": "no", "PATH": "/bin"}
    env = child_environment("xterm", {}, tmp_path, tmp_path / "d", tmp_path / "c", server)
    assert env[trace.TRACE_ENV] == "/tmp/x.trace" and "SECRET_THING" not in env
    assert trace.TRACE_ENV not in child_environment("xterm", {}, tmp_path, tmp_path / "d",
                                                    tmp_path / "c", {"PATH": "/bin"})


def step(t: float, stage: str, who: str, n: int = -1, cpu: float = 0.0,
         **extra: object) -> dict[str, object]:
    return {"t": t, "cpu": cpu, "pid": 1, "stage": stage, "table": "x", "n": n, "who": who,
            **extra}


def test_a_move_is_followed_from_the_key_to_the_other_screen() -> None:
    lines = [
        step(10.000, "tool-sent", "Ann", sent=10.000),
        step(10.010, "key", "Ann", 6, cpu=1.000),
        step(10.012, "send", "Ann", cpu=1.002),
        step(10.013, "server-call", "Ann"),
        step(10.015, "server-played", "Ann", 7),
        step(10.016, "server-pushed", "", 7, upto=7, to="Bob"),
        step(10.020, "recv", "Bob", 7),
        step(10.021, "take", "Bob", 7, cpu=2.000),
        step(10.024, "answer", "Ann", 7),
        step(10.031, "taken", "Bob", 7, cpu=2.005),
        step(10.051, "drawn", "Bob", 7, cpu=2.015),
        step(10.060, "tool-seen", "Ann", to="Bob", sent=10.000, arrived=10.060),
    ]
    [move] = tracetables.moves(lines)
    ms = {k: round(v * 1000, 3) for k, v in move.items()}
    assert ms == {"input": 10, "a_prep": 2, "to_server": 1, "hub": 2, "push": 1, "to_b": 4,
                  "b_wait": 1, "b_take": 10, "b_draw": 20, "output": 9, "total": 60,
                  "a_prep_cpu": 2, "b_take_cpu": 5, "b_draw_cpu": 10}
    assert sum(move[s] for s in tracetables.STEPS) == pytest.approx(move["total"])
    figures = tracetables.report([move], 1)
    assert figures["steps"]["b_draw"]["p50_ms"] == 20.0
