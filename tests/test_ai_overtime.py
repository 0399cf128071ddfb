"""The arena's ``hard-long``: a decision still open when the budget is spent may take longer
(search ``overtime``). The clock is a fake one: no test here waits."""

from __future__ import annotations

import itertools

import pytest

from casino_tui.ai import OVERTIME, choose_move
from casino_tui.ai import search as search_module
from casino_tui.ai.search import WIDE_STOPPING, search
from casino_tui.engine import Rules, State


def _open_decision() -> State:
    """A first move of a seeded classic round where the search keeps several candidates."""
    return State(Rules.preset("classic"), 2, seed=11)


def _fake_clock(monkeypatch: pytest.MonkeyPatch, step: float) -> list[float]:
    ticks = itertools.count()
    seen: list[float] = []

    def now() -> float:
        t = next(ticks) * step
        seen.append(t)
        return t

    monkeypatch.setattr(search_module.time, "perf_counter", now)
    return seen


@pytest.mark.parametrize("overtime", [1.0, OVERTIME])
def test_an_open_decision_may_run_into_overtime_and_no_further(
        monkeypatch: pytest.MonkeyPatch, overtime: float) -> None:
    st = _open_decision()
    view = st.view(st.current_player)
    seen = _fake_clock(monkeypatch, 0.002)
    result = search(view, seed=1, budget=1.0, stopping=WIDE_STOPPING, overtime=overtime)
    assert st.is_legal(result.move)
    end = seen[-1]
    # the search went on to the late limit (this decision stays open) and stopped there
    assert 0.92 * overtime <= end < 0.92 * overtime + 0.05
    assert result.worlds > 0


def test_a_settled_decision_takes_no_overtime(monkeypatch: pytest.MonkeyPatch) -> None:
    # one legal move: nothing to search, whatever the overtime
    st = State.from_position(Rules.preset("classic"), 2, table=[], hands=[[0], [1]], to_move=0,
                             dealer=1, stock=[], complete=False)
    view = st.view(0)
    seen = _fake_clock(monkeypatch, 0.002)
    assert search(view, seed=1, budget=1.0, overtime=OVERTIME).move == st.legal_moves()[0]
    assert not seen or seen[-1] < 0.05


def test_hard_long_is_an_arena_level() -> None:
    st = _open_decision()
    view = st.view(st.current_player)
    assert st.is_legal(choose_move(view, "hard-long", seed=1, iterations=12))
