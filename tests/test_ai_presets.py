"""The computers play each preset's special actions: positions where the right choice is clear.

Call-out 21 (claim when the points already won reach the target, never before), sudden death
(take the sweep that wins, never leave one that loses), Pluck (pluck first when it makes a
sweep), Michigan's build duty, partnerships (secure a partner's build), and a count-out race.
Each test fails if the level named makes the wrong choice.
"""

from __future__ import annotations

import random

import pytest

from casino_tui.ai import choose_move
from casino_tui.ai.search import claim_wins, playout, policy_scores
from casino_tui.ai.values import rule_values
from casino_tui.engine import Move, Rules, State, parse_card
from casino_tui.engine.notation import parse_position
from casino_tui.engine.scoring import claim_credit

C = parse_card
LEVELS = ("medium", "hard")
SEEDS = (1, 2, 3)


def position(preset: str, text: str, *, stock: int = 0, taken: tuple[int, ...] | None = None,
             last: int = 1, **overrides: object) -> State:
    """A complete position: ``text`` in the notation of docs/NOTATION.md, the other cards of the
    deck dealt at random (fixed seed) to the stock (``stock`` cards) and the capture piles
    (``taken`` cards each, the rest to seat 0; or shared out in turn)."""
    rules = Rules.preset(preset, **overrides)
    st = parse_position(text, rules, complete=False)
    placed = set(st.all_card_places())
    rest = [c for c in rules.deck_cards if c not in placed]
    random.Random(len(rest)).shuffle(rest)
    stock_cards, rest = rest[:stock], rest[stock:]
    captured = [list(c) for c in st.captured]
    if taken is None:
        for i, c in enumerate(rest):
            captured[i % st.num_players].append(c)
    else:
        k = 0
        for seat, count in enumerate(taken):
            captured[seat].extend(rest[k:k + count])
            k += count
        captured[0].extend(rest[k:])
    return State.from_position(
        rules, st.num_players, table=st.table, hands=st.hands, to_move=st.to_move,
        dealer=(st.to_move - 1) % st.num_players, stock=stock_cards, captured=captured,
        sweeps=st.sweeps, last_capturer=last, scores=st.scores, target=st.target,
        phase=st.phase, played_card=st.view(st.to_move).played_card,
        pluck_used=st.pluck_used)


def choices(st: State, level: str) -> list[Move]:
    seat = st.current_player
    assert seat is not None
    return [choose_move(st.view(seat), level, seed=s, iterations=200) for s in SEEDS]


# ------------------------------------------------------------------ call-out 21
@pytest.mark.parametrize("level", ("easy", *LEVELS))
def test_claims_as_soon_as_the_points_won_reach_the_target(level: str) -> None:
    st = position("call_out", "turn=0 table=5H,4C hands=9S10D3H/KHKDQS score=18/10",
                  stock=16, taken=(20, 10))
    side_cards = st.captured[0]
    assert sum(claim_credit(st.rules, side_cards, 0).values()) == 3  # three aces: 18 + 3
    assert all(m.kind == "claim" for m in choices(st, level))


@pytest.mark.parametrize("level", ("easy", *LEVELS))
def test_does_not_claim_while_a_point_is_not_yet_certain(level: str) -> None:
    # 26 cards: the cards' 3 points are likely but not certain (27 are needed), and what is
    # certain falls one point short of 21; a claim now would lose the game.
    text = "turn=0 table=5H,4C,AD hands=9S10DAH/KHKDQS"
    st = position("call_out", text, stock=10, taken=(26, 8))
    assert len(st.captured[0]) == 26
    credit = sum(claim_credit(st.rules, st.captured[0], 0).values())
    st = position("call_out", f"{text} score={20 - credit}/10", stock=10, taken=(26, 8))
    claim = st.clone()
    claim.apply(Move.claim())
    assert claim.winner == 1
    assert all(m.kind != "claim" for m in choices(st, level))


# ------------------------------------------------------------------ sudden death
@pytest.mark.parametrize("level", LEVELS)
def test_takes_the_sweep_that_wins_a_sudden_death_game(level: str) -> None:
    st = position("sudden_death", "turn=0 table=5H,4C hands=9S10DAH/KHKDQS score=20/10",
                  stock=16)
    for move in choices(st, level):
        after = st.clone()
        after.apply(move)
        assert after.is_game_over and after.winner == 0, move


@pytest.mark.parametrize("level", LEVELS)
def test_does_not_leave_a_sweep_that_wins_the_opponent_the_game(level: str) -> None:
    # The opponent has 20 of 21: taking 10D would leave 7H alone, and any seven sweeps it.
    st = position("sudden_death", "turn=0 table=10D,7H hands=10C4S2H3D/KHKDQSQC score=10/20",
                  stock=16)
    for move in choices(st, level):
        after = st.clone()
        after.apply(move)
        assert len(after.table) != 1, move


# ------------------------------------------------------------------ Pluck
@pytest.mark.parametrize("level", LEVELS)
def test_plucks_first_when_that_leaves_a_sweep(level: str) -> None:
    # Plucking KS leaves 3H 6H, which the 9 then sweeps; playing first leaves KS behind.
    st = position("pluck", "turn=0 table=3H,6H,KS hands=9C4D/KHKD", stock=16)
    assert all(m == Move.pluck(C("KS")) for m in choices(st, level))


# ------------------------------------------------------------------ Michigan's duty
@pytest.mark.parametrize("level", LEVELS)
def test_keeps_the_duty_of_its_build_in_michigan(level: str) -> None:
    # Building ten with the only nine would leave the build of nine without its card: two
    # points for the opponent, who then has the 21.
    st = position("michigan", "turn=0 table=[4S5S=9s@0],AH hands=9C10C3D/KHKDQS score=6/19",
                  stock=16)
    for move in choices(st, level):
        after = st.clone()
        ev = after.apply(move)
        assert not ev.penalty, move


# ------------------------------------------------------------------ partnerships
@pytest.mark.parametrize("level", LEVELS)
def test_secures_the_partners_build_before_an_opponent_can_take_it(level: str) -> None:
    # North (seat 2, the partner) owns a build of ten holding 10D; East plays next and may hold
    # the last ten. South takes the build now with 10C.
    st = position("classic", "turn=0 table=[10D6H4H=10m@2],8D "
                  "hands=10C8S2H5C/KHKDQSJS/KC10SQH3S/JHJDJC3C", stock=16)
    build_at = next(i for i, p in enumerate(st.table) if not isinstance(p, int))
    for move in choices(st, level):
        assert move.kind == "capture" and build_at in move.piles, move


# ------------------------------------------------------------------ count-out
def test_hard_wins_a_count_out_race_rather_than_take_more_points() -> None:
    # Count-out (RULES.md 6.3), 20 all, last cards of the round, nothing hidden. Taking 10D
    # scores a point more, but the cards are counted first: 8H on A 2 5 keeps enough cards from
    # the opponent, and that alone wins. (Found by exhaustive search of random last deals.)
    rules = Rules.preset("classic", game_end="count_out")
    st = parse_position(
        "turn=0 dealer=1 table=AC,2H,5H,7C,9C hands=10D8H7S/4C9S10C stock=- "
        "taken=2S4D8C3HQHAS8S7D3D7H5DKSJH6H10SJS9HJD9D4S/"
        "4HQD2CAD8DAH3C3S6C5CJC6D10HQCKC6SKHQSKD5S2D last=1 score=20/20", rules)
    winning = Move.capture(C("8H"), (0, 1, 2))
    more_points = Move.capture(C("10D"), (0, 1, 3))
    for move, winner in ((winning, 0), (more_points, 1)):
        after = st.clone()
        after.apply(move)
        assert _minimax_winner(after) == winner, move  # with best play on both sides
    assert all(m == winning for m in choices(st, "hard"))


def _minimax_winner(st: State) -> int:
    """The side that wins with best play from here to the end of the round (two players: a
    seat is its side)."""
    if st.is_game_over:
        assert st.winner is not None
        return st.winner
    seat = st.current_player
    assert seat is not None
    results = []
    for m in st.legal_moves():
        child = st.clone()
        child.apply(m)
        results.append(_minimax_winner(child))
    return seat if seat in results else results[0]


# ------------------------------------------------------------------ Hard's playouts
def test_players_of_hards_playouts_claim_as_soon_as_the_claim_wins() -> None:
    st = position("call_out", "turn=0 table=5H,4C hands=9S10D3H/KHKDQS score=18/10",
                  stock=16, taken=(20, 10))
    rv = rule_values(st.rules)
    assert claim_wins(st, rv)
    playout(st, rv, random.Random(1), 0, 0.1, 100)
    assert st.is_game_over and st.winner == 0 and st.history == [Move.claim()]
    short = position("call_out", "turn=0 table=5H,4C hands=9S10D3H/KHKDQS score=17/10",
                     stock=16, taken=(20, 10))
    assert not claim_wins(short, rv)


def test_hards_playouts_see_michigans_duty() -> None:
    st = position("michigan", "turn=0 table=[4S5S=9s@0],AH hands=9C10C3D/KHKDQS", stock=16)
    moves = st.legal_moves()
    scores = dict(zip(moves, policy_scores(st, moves, rule_values(st.rules)), strict=True))
    breaks = [m for m in moves if m.kind == "build" and m.card == C("9C")]
    assert breaks
    plain = Rules.preset("sudden_death", sweep_points=2)  # Michigan without the duty
    same = State.from_position(plain, 2, table=st.table, hands=st.hands, to_move=0,
                               stock=st.stock, captured=st.captured, last_capturer=1)
    plain_scores = dict(zip(moves, policy_scores(same, moves, rule_values(plain)),
                            strict=True))
    for m in breaks:
        assert scores[m] == pytest.approx(plain_scores[m] - 2.0)
    for m in moves:
        if m not in breaks:
            assert scores[m] == pytest.approx(plain_scores[m])
