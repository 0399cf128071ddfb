"""The round review's analysis (casino_tui.ai.review): the plays of a round rebuilt from the
game's start, Hard's estimate of a play (from the player's view only), the summing up, and the
estimate in the worker process."""

from __future__ import annotations

import asyncio
import random

import pytest
from ai_support import shuffled_hidden

from casino_tui.ai import choose_move
from casino_tui.ai.hard import hard_search
from casino_tui.ai.review import (
    Estimate,
    estimate,
    game_start,
    points_text,
    round_plays,
    summary_line,
)
from casino_tui.ai.worker import AIWorker
from casino_tui.engine import IllegalMoveError, Move, Rules, State, parse_card, parse_cards
from casino_tui.engine.notation import format_position

C = parse_card


def _play_rounds(state: State, rounds: int, seed: int = 0) -> None:
    """Medium plays every seat until ``rounds`` rounds are over."""
    k = 0
    while not state.is_game_over:
        if state.is_round_over:
            if state.round_no >= rounds:
                return
            state.next_round()
        seat = state.current_player
        assert seat is not None
        state.apply(choose_move(state.view(seat), "medium", seed=seed + k))
        k += 1


def _last_cards(table: str, hand: str, other: str, stock: int = 0) -> State:
    """South to move; the cards not placed go to the captured piles (and ``stock`` of them to
    the stock)."""
    rules = Rules.preset("classic")
    t = parse_cards(table)
    h0, h1 = parse_cards(hand), parse_cards(other)
    used = set(t) | set(h0) | set(h1)
    rest = [c for c in rules.deck_cards if c not in used]
    random.Random(len(rest)).shuffle(rest)
    stock_cards, rest = rest[:stock], rest[stock:]
    return State.from_position(rules, 2, table=t, hands=[h0, h1], to_move=0, dealer=1,
                               stock=stock_cards, captured=[rest[: len(rest) // 2],
                                                            rest[len(rest) // 2:]],
                               last_capturer=1)


# ------------------------------------------------------------------ the plays of a round
@pytest.mark.parametrize(("preset", "players"), [("classic", 2), ("classic", 4), ("royal", 3)])
def test_round_plays_rebuild_every_position_of_the_round(preset: str, players: int) -> None:
    state = State(Rules.preset(preset), players, seed=31)
    _play_rounds(state, 2)
    assert state.round_no == 2 and state.is_round_over
    start = game_start(state)
    first = round_plays(start, state.history, 1)
    second = round_plays(start, state.history, 2)
    assert len(first) + len(second) == len(state.history)
    assert [p.move for p in first + second] == state.history
    assert [p.number for p in second] == list(range(1, len(second) + 1))
    assert all(p.before.round_no == 2 for p in second)
    for play, after in zip(second, [*second[1:], None], strict=True):
        assert play.before.current_player == play.seat == play.event.seat
        assert play.move in play.before.legal_moves()
        st = play.before.clone()
        st.apply(play.move)
        if after is not None:  # the position after a play is the one before the next
            assert (st.hands, st.table, st.captured) == \
                (after.before.hands, after.before.table, after.before.captured)
        else:
            assert st.is_round_over and st.scores == state.scores
    assert round_plays(start, state.history, 3) == []


def test_round_plays_from_a_set_up_position_and_a_wrong_start() -> None:
    state = _last_cards("3C 6D", "9S 2H", "4C KD")
    text = format_position(state)
    _play_rounds(state, 1)
    plays = round_plays(game_start(state, text), state.history, 1)
    assert [p.move for p in plays] == state.history and len(plays) == 4
    with pytest.raises(IllegalMoveError):  # from the seed, the moves do not replay
        round_plays(game_start(state), state.history, 1)


# ------------------------------------------------------------------ Hard's estimate
def test_the_only_move_is_forced() -> None:
    state = _last_cards("3C", "9S", "KD")
    view = state.view(0)
    (only,) = view.legal_moves()
    est = estimate(view, only, seed=1, iterations=10)
    assert est.forced and est.best == only and est.difference == 0 and not est.changes


def test_a_play_hard_agrees_with_costs_nothing() -> None:
    state = State(Rules.preset("classic"), 2, seed=4)
    view = state.view(state.current_player)  # type: ignore[arg-type]
    best = hard_search(view, seed=6, budget=None, iterations=30).move
    est = estimate(view, best, seed=6, iterations=30)
    assert est.best == best == est.played and est.difference == 0 and not est.changes


def test_a_bad_play_is_found_and_priced_exactly_in_the_last_cards() -> None:
    # South can take Big Casino with the ten of spades; taking the three first lets North
    # take it with the ten of hearts: Hard says so, worked out to the end of the round.
    state = _last_cards("10D 3C", "10S 3S", "10H 8D")
    view = state.view(0)
    moves = view.legal_moves()
    three = next(m for m in moves if m.kind == "capture" and m.card == C("3S"))
    ten = next(m for m in moves if m.kind == "capture" and m.card == C("10S"))
    est = estimate(view, three, seed=2, iterations=30)
    assert est.exact and est.changes and est.best == ten
    assert est.difference >= 2  # Big Casino alone is worth 2 points to one side


def test_a_bad_play_with_hidden_cards_is_found_by_sampling() -> None:
    # Early in a round: South trails Big Casino, which 10S on the table takes.
    state = _last_cards("10S 4H", "10D 2C 5H 9S", "6H 7C JD QH", stock=30)
    view = state.view(0)
    est = estimate(view, Move.trail(C("10D")), seed=3, iterations=40)
    assert not est.exact and est.worlds >= 40
    assert est.changes and est.best != est.played and est.best in view.legal_moves()
    assert est.difference > 1


def test_the_estimate_uses_only_what_the_player_could_see() -> None:
    state = State(Rules.preset("classic"), 2, seed=17)
    for k in range(5):
        seat = state.current_player
        assert seat is not None
        state.apply(choose_move(state.view(seat), "medium", seed=k))
    seat = state.current_player
    assert seat is not None
    view = state.view(seat)
    played = view.legal_moves()[-1]
    rng = random.Random(8)
    twins = [shuffled_hidden(state, seat, rng) for _ in range(2)]
    assert any(t.hands != state.hands or t.stock != state.stock for t in twins)
    first = estimate(view, played, seed=5, iterations=12)
    for twin in twins:
        assert twin.view(seat) == view
        assert estimate(twin.view(seat), played, seed=5, iterations=12) == first


def test_estimate_refuses_bad_calls() -> None:
    state = _last_cards("3C 6D", "9S 2H", "4C KD")
    with pytest.raises(ValueError, match="not seat 1's turn"):
        estimate(state.view(1), Move.trail(C("4C")), seed=0, iterations=5)
    with pytest.raises(ValueError, match="not a legal move"):
        estimate(state.view(0), Move.trail(C("4C")), seed=0, iterations=5)


# ------------------------------------------------------------------ summing up
def test_summary_line_counts_the_changes_and_their_points() -> None:
    a, b, c = Move.trail(C("2H")), Move.trail(C("3H")), Move.trail(C("4H"))
    ests = [Estimate(a, b, 1.04), Estimate(b, c, 0.46), Estimate(c, c, 0.0),
            Estimate(a, b, 0.01)]  # about the same: not a change
    assert [e.changes for e in ests] == [True, True, False, False]
    assert summary_line(ests) == "2 plays Hard would change, about 1.5 points"
    assert summary_line(ests[1:2]) == "1 play Hard would change, about 0.5 points"
    assert summary_line(ests[2:]) == "no play Hard would change"
    assert points_text(1.0) == "1 point" and points_text(2.04) == "2 points"


# ------------------------------------------------------------------ in the worker process
def test_worker_review_matches_the_estimate_in_process() -> None:
    state = _last_cards("10S 4H", "10D 2C 5H 9S", "6H 7C JD QH", stock=30)
    view = state.view(0)
    played = Move.trail(C("10D"))

    async def run() -> Estimate:
        async with AIWorker() as worker:
            return await worker.review(view, played, seed=3, iterations=20)

    assert asyncio.run(run()) == estimate(view, played, seed=3, iterations=20)
