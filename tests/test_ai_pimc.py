"""The arena's ``hard-pimc`` and ``hard-pimc-min``: the rest of the deal searched in every
sampled world (casino_tui.ai.pimc)."""

from __future__ import annotations

import math
import random

import pytest
from ai_support import early_position

from casino_tui.ai import choose_move
from casino_tui.ai.pimc import DealSolver, pimc
from casino_tui.ai.search import policy_scores, utility
from casino_tui.ai.values import RuleValues, rule_values
from casino_tui.engine import Move, Rules, State, parse_card
from casino_tui.engine.state import Phase

C = parse_card


def _minimax(st: State, rv: RuleValues, my_side: int, deal: int, my_policy: bool) -> float:
    """Every play of the deal tried, no pruning, no table: what the solver must agree with."""
    if st.phase is not Phase.PLAY or st.deal_no != deal:
        return utility(st, rv, my_side)
    moves = [m for m in st.legal_moves() if m.kind != "claim"]
    mine = st.side_of[st.to_move] == my_side
    if mine and my_policy and len(moves) > 1:
        scores = policy_scores(st, moves, rv)
        moves = [moves[max(range(len(moves)), key=lambda i: (scores[i], -i))]]
    vals = []
    for m in moves:
        child = st.clone()
        child.apply(m, validate=False)
        vals.append(_minimax(child, rv, my_side, deal, my_policy))
    return max(vals) if mine else min(vals)


def _late_positions(count: int) -> list[State]:
    """Positions of classic rounds (random play) at most six plays before the end of a deal,
    every hand known (the solver's worlds)."""
    rules = Rules.preset("classic")
    out: list[State] = []
    for g in range(count):
        st = State(rules, 2, seed=f"pimc/{g}")
        rng = random.Random(g)
        target = rng.randrange(5, 40)
        while len(st.history) < target and not st.is_round_over:
            st.apply(choose_move(st.view(st.current_player), "random", seed=len(st.history)))
        if not st.is_round_over and sum(len(h) for h in st.hands) <= 6:
            out.append(st)
    return out


@pytest.mark.parametrize("my_policy", [False, True])
def test_the_deal_solver_agrees_with_plain_minimax(my_policy: bool) -> None:
    positions = _late_positions(80)
    assert len(positions) >= 40
    narrowed = 0
    for st in positions:
        rv = rule_values(st.rules)
        my_side = st.side_of[st.to_move]
        solver = DealSolver(rv, my_side, st.deal_no, per_card=99,
                            my_policy=my_policy, node_limit=10**6)
        got = solver.value(st.clone(), -math.inf, math.inf, (0, 0))
        want = _minimax(st.clone(), rv, my_side, st.deal_no, my_policy)
        assert got == pytest.approx(want)
        one = DealSolver(rv, my_side, st.deal_no, per_card=1,
                         my_policy=my_policy, node_limit=10**6)
        narrowed += one.value(st.clone(), -math.inf, math.inf, (0, 0)) != pytest.approx(want)
    # some positions need a second play of the same card (the test sees the choice)
    assert narrowed or my_policy


def test_hard_pimc_is_reproducible_and_values_every_candidate() -> None:
    st = early_position("5C 3D 9H KS", "2S 6H 10C 4D")
    view = st.view(0)
    first = pimc(view, seed=4, iterations=20)
    again = pimc(view, seed=4, iterations=20)
    assert first.move == again.move and first.means == again.means
    assert st.is_legal(first.move)
    assert len(first.means) >= 2 and first.worlds == 20
    for level in ("hard-pimc", "hard-pimc-min"):
        picks = {choose_move(view, level, seed=s, iterations=10) for s in range(3)}
        assert all(st.is_legal(m) for m in picks)


def test_hard_pimc_takes_a_sweep_with_big_casino() -> None:
    st = early_position("6S 4H", "10D 3C 7H JS")
    for my_policy in (False, True):
        result = pimc(st.view(0), seed=1, iterations=30, my_policy=my_policy)
        assert result.move == Move.capture(C("10D"), (0, 1))
