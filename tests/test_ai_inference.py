"""Hard v1 is frozen as the arena level ``hard-v1``; the plays of a deal are public in every
seat's view; Hard infers from them which cards an opponent still holds (more than two players:
tests/test_ai_hard.py)."""

from __future__ import annotations

import json
import pickle
import random
from collections import Counter
from pathlib import Path

import pytest

from casino_tui.ai import ARENA_LEVELS, LEVELS, choose_move
from casino_tui.ai.infer import InferringSampler, deal_plays
from casino_tui.ai.search import Sampler
from casino_tui.arena import ArenaUsageError, parse_config
from casino_tui.engine import Move, Rules, State, parse_card
from casino_tui.engine.cards import rank_of

C = parse_card
DATA = Path(__file__).parent / "data" / "hard_v1_moves.json"


# ------------------------------------------------------------------ hard-v1 stays what it was
def _v1_cases() -> list[dict[str, object]]:
    return json.loads(DATA.read_text())


def _move(fields: object) -> Move:
    kind, card, piles, value, single, court = fields  # type: ignore[misc]
    return Move(kind, card, tuple(piles), value, single, court)


def test_hard_v1_plays_exactly_as_hard_did_when_it_was_frozen() -> None:
    """tests/data/hard_v1_moves.json holds the moves Hard chose (30 sampled deals a move) at
    commit 3b60f08, before it changed, in seeded positions of six games (classic, Royal, four
    in partnerships, Call-out, Michigan); ``hard-v1`` must choose every one of them again."""
    cases = _v1_cases()
    assert len(cases) >= 90
    games: dict[tuple[str, int, int], list[dict[str, object]]] = {}
    for case in cases:
        key = (str(case["preset"]), int(case["players"]), int(case["game"]))  # type: ignore[call-overload]
        games.setdefault(key, []).append(case)
    checked = 0
    for (preset, players, game), wanted in games.items():
        by_ply = {int(c["ply"]): _move(c["move"]) for c in wanted}  # type: ignore[call-overload]
        st = State(Rules.preset(preset), players, seed=f"hard-v1/{game}")
        k = 0
        while not st.is_round_over:
            seat = st.current_player
            assert seat is not None
            view = st.view(seat)
            if k in by_ply:
                got = choose_move(view, "hard-v1", seed=k, iterations=30)
                assert got == by_ply[k], (preset, players, game, k)
                checked += 1
            st.apply(choose_move(view, "medium", seed=k))
            k += 1
    assert checked == len(cases)


def test_hard_v1_is_an_arena_level_but_not_a_player_choice() -> None:
    assert ARENA_LEVELS == ("hard-v1",)
    assert not set(ARENA_LEVELS) & set(LEVELS)
    cfg, _ = parse_config(["--a", "hard", "--b", "hard-v1"])
    assert (cfg.a, cfg.b) == ("hard", "hard-v1")
    for gone in ("hard-wide-infer", "hard-mcts"):  # the experiments are in git history
        with pytest.raises(ArenaUsageError, match=gone):
            parse_config(["--a", gone, "--b", "hard-v1"])
    with pytest.raises(ArenaUsageError, match="hard-v1"):
        parse_config(["--a", "hard", "--b", "hard-v9"])
    st = State(Rules.preset("classic"), 2, seed=3)
    with pytest.raises(ValueError, match="hard-v1"):
        choose_move(st.view(st.current_player or 0), "harder", seed=1)


# ------------------------------------------------------------------ the deal's plays are public
def test_a_view_holds_this_deals_plays_and_they_replay_to_the_table() -> None:
    rules = Rules.preset("classic")
    st = State(rules, 2, seed=11)
    pick = random.Random(11)
    deals_seen = set()
    while not st.is_round_over:
        seat = st.current_player
        assert seat is not None
        view = st.view(seat)
        start = len(st.history) - len(view.deal_plays)
        assert view.deal_plays == tuple(st.history[start:])
        # the plays of this deal are all the moves since the cards were dealt
        assert len(view.deal_plays) == 2 * rules.hand_size - sum(view.hand_sizes)
        replayed = deal_plays(view)
        assert [m for _s, _t, m in replayed] == list(view.deal_plays)
        assert [s for s, _t, _m in replayed] == [(view.dealer + 1 + i) % 2
                                                for i in range(len(replayed))]
        if replayed:  # replaying the last play from the table before it gives today's table
            seat0, table, move = replayed[-1]
            again = State.from_position(rules, 2, table=table, hands=[[], []],
                                        to_move=seat0, complete=False)
            again.hands = [[move.card, *st.hands[0]], [move.card, *st.hands[1]]]
            again.apply(move)
            assert tuple(again.table) == view.table
        deals_seen.add(view.deal_no)
        moves = st.legal_moves()
        st.apply(moves[pick.randrange(len(moves))])
    assert len(deals_seen) == 6


def test_the_deal_log_survives_pickling_and_cloning() -> None:
    st = State(Rules.preset("classic"), 2, seed=5)
    for _ in range(3):
        st.apply(st.legal_moves()[0])
    view = st.view(st.current_player or 0)
    assert len(view.deal_plays) == 3
    assert pickle.loads(pickle.dumps(view)) == view
    assert st.clone().view(view.seat) == view


# ------------------------------------------------------------------ inference
def _trailed_by_big_casino() -> State:
    """Seat 1 trailed the three of clubs with the ten of diamonds (two points) on the table."""
    rules = Rules.preset("classic")
    deck = list(rules.deck_cards)
    hands = [[C("4S"), C("5H"), C("KC"), C("QC")], [C("3C"), C("2H"), C("9S"), C("JH")]]
    table = [C("10D"), C("6C")]
    used = {c for h in hands for c in h} | set(table)
    rest = [c for c in deck if c not in used]
    st = State.from_position(rules, 2, table=table, hands=hands, to_move=1, dealer=0,
                             stock=rest, complete=True)
    st.apply(Move.trail(C("3C")))
    return st


def test_a_player_who_trailed_past_the_big_casino_is_taken_to_hold_no_ten() -> None:
    st = _trailed_by_big_casino()
    view = st.view(0)
    assert len(view.deal_plays) == 1
    plain = Sampler(view)
    inferred = InferringSampler(view)
    assert inferred.informed and not InferringSampler(State(
        Rules.preset("classic"), 2, seed=1).view(1)).informed
    rng = random.Random(4)

    def tens(sampler: Sampler) -> float:
        counts: Counter[int] = Counter()
        for _ in range(400):
            hands, stock = sampler.deal(rng)
            assert len(hands[1]) == 3 and len(stock) == view.stock_size
            assert not set(hands[1]) & set(view.hand)
            counts.update(rank_of(c) for c in hands[1])
        return counts[9] / 400  # tens per hand

    uniform, after = tens(plain), tens(inferred)
    assert uniform > 0.15  # 3 of 40 unseen cards are tens: about 0.22 a hand
    assert after < uniform / 3


def test_inference_weighs_nothing_it_cannot_replay() -> None:
    """A hand-made position has no deal log: the sampler deals as the plain one does."""
    st = State.from_position(Rules.preset("classic"), 2, table=[C("5C")],
                             hands=[[C("5D")], [C("6D")]], to_move=0, complete=False)
    view = st.view(0)
    assert deal_plays(view) == []
    assert not InferringSampler(view).informed


def test_hard_plays_legal_reproducible_moves_from_what_it_inferred() -> None:
    st = _trailed_by_big_casino()
    view = st.view(0)
    moves = [choose_move(view, "hard", seed=s, iterations=40) for s in (1, 1, 2)]
    assert moves[0] == moves[1]
    assert all(m in view.legal_moves() for m in moves)
