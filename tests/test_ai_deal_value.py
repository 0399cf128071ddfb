"""The arena's ``hard-learn``: a learned value of the end of a deal (casino_tui.ai.deal_value)."""

from __future__ import annotations

import random

import pytest

from casino_tui.ai import choose_move, deal_value
from casino_tui.ai.search import playout, policy_move, utility
from casino_tui.ai.values import rule_values
from casino_tui.engine import Rules, State
from casino_tui.engine.state import Phase


def _deal_ends(count: int) -> list[State]:
    """Positions of classic rounds just after a deal ended, the round going on."""
    rules = Rules.preset("classic")
    rv = rule_values(rules)
    out = []
    for g in range(count):
        st = State(rules, 2, seed=f"dv/{g}")
        rng = random.Random(g)
        deal = st.deal_no
        while st.phase is Phase.PLAY:
            st.apply(policy_move(st, rv, rng, 0.1), validate=False)
            if st.phase is Phase.PLAY and st.deal_no != deal:
                deal = st.deal_no
                out.append(st.clone())
    return out


def test_the_shipped_model_fits_its_features_and_only_classic_for_two() -> None:
    assert len(deal_value.weights()) == len(deal_value.FEATURES)
    classic = Rules.preset("classic")
    assert deal_value.applies_to(classic, 2)
    assert not deal_value.applies_to(classic, 4)
    assert not deal_value.applies_to(Rules.preset("royal"), 2)


def test_the_value_is_the_same_seen_from_either_side() -> None:
    positions = _deal_ends(10)
    assert len(positions) >= 40
    rv = rule_values(positions[0].rules)
    for st in positions:
        f0 = deal_value.features(st, rv, 0)
        f1 = deal_value.features(st, rv, 1)
        assert f0[0] == f1[0] == 1.0
        assert f0[1:] == pytest.approx([-x for x in f1[1:]])
        assert deal_value.value(st, rv, 0) == pytest.approx(-deal_value.value(st, rv, 1))
    # it is not the playouts' value: the table left and the lead count
    assert any(abs(deal_value.value(st, rv, 0) - utility(st, rv, 0)) > 0.1 for st in positions)


def test_a_playout_values_the_end_of_its_deal_with_it() -> None:
    rules = Rules.preset("classic")
    rv = rule_values(rules)
    st = State(rules, 2, seed="dv/playout")
    seen: list[State] = []

    def leaf(s: State, rv_: object, side: int) -> float:
        seen.append(s.clone())
        return 42.0

    v = playout(st.clone(), rv, random.Random(1), 0, 0.1, 100, False, leaf)
    assert v == 42.0
    (end,) = seen
    assert end.deal_no == st.deal_no + 1 and end.phase is Phase.PLAY
    assert all(len(h) == rules.hand_size for h in end.hands)  # the next deal is dealt
    # to the end of the round: the round's own points, never the model
    seen.clear()
    v = playout(st.clone(), rv, random.Random(1), 0, 0.1, 1000, True, leaf)
    assert not seen and v != 42.0


def test_hard_learn_plays_legal_moves_reproducibly() -> None:
    st = State(Rules.preset("classic"), 2, seed=5)
    view = st.view(st.current_player)
    first = choose_move(view, "hard-learn", seed=2, iterations=20)
    assert first == choose_move(view, "hard-learn", seed=2, iterations=20)
    assert st.is_legal(first)
