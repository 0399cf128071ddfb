"""Computer players: legality everywhere, honesty, determinism, the search's parts, the worker."""

from __future__ import annotations

import asyncio
import random

import pytest
from ai_support import shuffled_hidden

from casino_tui.ai import ARENA_LEVELS, LEVELS, choose_move, hint
from casino_tui.ai import search as search_mod
from casino_tui.ai.heuristic import Knowledge, choose_medium, rank_moves
from casino_tui.ai.values import majority_probs, pending_points, rule_values
from casino_tui.ai.worker import AIWorker
from casino_tui.engine import PRESET_NAMES, Build, Move, Rules, State, parse_card, parse_cards
from casino_tui.engine.scoring import score_round
from casino_tui.engine.state import Phase

C = parse_card


def _play(state: State, levels: dict[int, str], moves: int | None = None, *,
          seed: int = 0, iterations: int = 2) -> int:
    """Play until the round ends (or ``moves`` moves); every choice must be legal."""
    k = 0
    while not state.is_round_over and not state.is_game_over and (moves is None or k < moves):
        seat = state.current_player
        assert seat is not None
        move = choose_move(state.view(seat), levels[seat], seed=seed + k, iterations=iterations)
        assert state.is_legal(move), (state.rules.preset_name, levels[seat], move)
        state.apply(move)
        k += 1
    return k


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_every_level_plays_legal_moves_in_every_preset(preset: str) -> None:
    rules = Rules.preset(preset)
    assert rules.player_counts
    for n in rules.player_counts:
        state = State(rules, n, seed=11 + n)
        levels = {s: LEVELS[(s + n) % len(LEVELS)] for s in range(n)}
        played = _play(state, levels)
        assert played >= len(rules.deck_cards) - rules.initial_table_cards - 4 * n or \
            state.is_game_over or preset.startswith("initial_pairs")


def test_hard_plays_whole_rounds_with_the_time_budget() -> None:
    state = State(Rules.preset("classic"), 2, seed=4)
    k = 0
    while not state.is_round_over:
        seat = state.current_player
        assert seat is not None
        move = choose_move(state.view(seat), "hard", seed=k, budget=0.02)
        assert state.is_legal(move)
        state.apply(move)
        k += 1
    assert k == 48


def test_four_player_partnership_and_pluck_phase() -> None:
    state = State(Rules.preset("pluck"), 4, seed=3)
    _play(state, {0: "hard", 1: "medium", 2: "hard", 3: "easy"}, moves=30)
    assert state.history


def _big_table_position() -> State:
    """A table of many low cards, so the player to move has hundreds of legal moves."""
    rules = Rules.preset("classic")
    table = parse_cards("AS AH AD AC 2H 2D 2C 3S 3H 3D 3C 4S 4H")
    hand0 = parse_cards("9S 10S 8S 7S")
    hand1 = parse_cards("9H 10H 8H 7H")
    used = set(table) | set(hand0) | set(hand1)
    stock = [c for c in rules.deck_cards if c not in used]
    random.Random(1).shuffle(stock)
    return State.from_position(rules, 2, table=table, hands=[hand0, hand1], to_move=0,
                               stock=stock[:32], captured=[stock[32:], []])


def test_hard_copes_with_hundreds_of_legal_moves() -> None:
    state = _big_table_position()
    moves = state.legal_moves()
    assert len(moves) > 200
    view = state.view(0)
    result = search_mod.search(view, seed=1, iterations=3)
    assert state.is_legal(result.move)
    assert len(result.means) <= search_mod.MAX_CANDIDATES + 4
    for level in LEVELS:
        assert state.is_legal(choose_move(view, level, seed=2, iterations=3))


# ------------------------------------------------------------------ honesty and determinism
@pytest.mark.parametrize(("preset", "players"), [("classic", 2), ("classic", 4), ("royal", 3)])
def test_choices_depend_only_on_what_the_seat_can_see(preset: str, players: int) -> None:
    state = State(Rules.preset(preset), players, seed=21)
    _play(state, {s: "medium" for s in range(players)}, moves=7)
    seat = state.current_player
    assert seat is not None
    rng = random.Random(5)
    twins = [shuffled_hidden(state, seat, rng) for _ in range(2)]
    assert any(t.hands != state.hands or t.stock != state.stock for t in twins)
    for twin in twins:
        assert twin.view(seat) == state.view(seat)
        assert twin.view(seat).deal_plays  # Hard-infer has plays to learn from
        for level in LEVELS + ARENA_LEVELS:
            a = choose_move(state.view(seat), level, seed=9, iterations=6)
            b = choose_move(twin.view(seat), level, seed=9, iterations=6)
            assert a == b, level


def test_same_seed_same_choice_and_seeds_matter() -> None:
    state = State(Rules.preset("classic"), 2, seed=8)
    view = state.view(state.current_player)  # type: ignore[arg-type]
    for level in LEVELS:
        first = choose_move(view, level, seed=3, iterations=8)
        assert all(choose_move(view, level, seed=3, iterations=8) == first for _ in range(2))
    picks = {choose_move(view, "random", seed=s) for s in range(40)}
    assert len(picks) > 1


def test_choose_move_rejects_bad_calls() -> None:
    state = State(Rules.preset("classic"), 2, seed=1)
    seat = state.current_player
    assert seat is not None
    with pytest.raises(ValueError, match="unknown level"):
        choose_move(state.view(seat), "expert", seed=1)
    with pytest.raises(ValueError, match="turn"):
        choose_move(state.view(1 - seat), "medium", seed=1)
    with pytest.raises(ValueError, match="iterations"):
        choose_move(state.view(seat), "hard", seed=1, iterations=0)


# ------------------------------------------------------------------ what the levels prefer
def _position(table: str, hand: str, other: str, *, builds: list[Build] | None = None,
              preset: str = "classic") -> State:
    rules = Rules.preset(preset)
    t: list[int | Build] = list(parse_cards(table)) if table else []
    t.extend(builds or [])
    h0 = parse_cards(hand)
    h1 = parse_cards(other)
    used = set(h0) | set(h1)
    for p in t:
        used |= set(p.cards) if isinstance(p, Build) else {p}
    rest = [c for c in rules.deck_cards if c not in used]
    random.Random(len(rest)).shuffle(rest)
    return State.from_position(rules, 2, table=t, hands=[h0, h1], to_move=0, dealer=1,
                               stock=[], captured=[rest[: len(rest) // 2],
                                                   rest[len(rest) // 2:]],
                               last_capturer=1)


def test_medium_takes_big_casino_and_answers_a_build() -> None:
    # the opponent holds a ten, so building ten with 7D on 3S could be stolen: take 10D now
    st = _position("10D 3S", "10C 4H KH 7D", "10H 6H 9C QD")
    assert choose_medium(st.view(0), random.Random(0)) == Move.capture(C("10C"), (1,))
    build = Build((C("5H"), C("3H")), 8, True, owner=1)
    st = _position("KS", "8C 2H", "8D JC", builds=[build])
    move = choose_medium(st.view(0), random.Random(0))
    assert move.kind == "capture" and move.card == C("8C") and 1 in move.piles


def test_medium_does_not_leave_an_easy_sweep() -> None:
    # trailing the 4 on the lone 5 would leave 9 for any nine; the king is safer
    st = _position("5C", "4D KS", "9H 9D", preset="classic")
    ranked = rank_moves(Knowledge.of(st.view(0)), st.legal_moves())
    assert ranked[0].move == Move.trail(C("KS"))


def test_hard_solves_the_last_cards_exactly() -> None:
    # Last cards of the round, nothing hidden: the solver must find the value of full
    # minimax, checked against a plain minimax written here.
    st = _position("3S 5H", "8D 2S 5C", "3C 9H 8H")
    view = st.view(0)
    result = search_mod.search(view, seed=0, iterations=5)
    assert result.solved

    rv = rule_values(st.rules)

    def minimax(s: State) -> float:
        if s.phase not in (Phase.PLAY, Phase.PLUCK):
            return search_mod.utility(s, rv, 0)
        vals = []
        for m in s.legal_moves():
            child = s.clone()
            child.apply(m, validate=False)
            vals.append(minimax(child))
        return max(vals) if s.side_of[s.to_move] == 0 else min(vals)

    exact = {}
    for m in st.legal_moves():
        child = st.clone()
        child.apply(m, validate=False)
        exact[m] = minimax(child)
    assert exact[result.move] == pytest.approx(max(exact.values()))


def test_sampled_worlds_respect_the_view_and_build_owners() -> None:
    build = Build((C("5H"), C("4H")), 9, True, owner=1)
    st = _position("KS", "8C 2H 3D", "9D JC 4C", builds=[build])
    # put some cards back in the stock so that something is hidden
    rules = st.rules
    stock = st.captured[0][:8]
    st = State.from_position(rules, 2, table=st.table, hands=st.hands, to_move=0, dealer=1,
                             stock=stock, captured=[st.captured[0][8:], st.captured[1]],
                             last_capturer=1)
    view = st.view(0)
    sampler = search_mod.Sampler(view)
    assert sampler.hidden
    rng = random.Random(3)
    for _ in range(40):
        world = sampler.sample(rng)
        world.validate(complete=True)
        assert world.view(0) == view
        assert any(9 in rules.capturer_values[c] for c in world.hands[1])


def test_majority_probabilities() -> None:
    assert majority_probs([27, 20], 0, 52, False) == [1.0, 0.0]
    assert majority_probs([26, 26], 0, 52, False) == [0.0, 0.0]
    p = majority_probs([10, 10], 10, 52, False)
    assert p[0] == pytest.approx(p[1]) and sum(p) < 1
    assert majority_probs([14, 10], 10, 52, False)[0] > majority_probs([12, 10], 10, 52, False)[0]
    three = majority_probs([10, 12, 6], 20, 52, False)
    assert three[1] > three[0] > three[2] and sum(three) <= 1.0001
    assert majority_probs([27, 20], 5, 52, True)[0] == 1.0


@pytest.mark.parametrize("preset", ["classic", "spade_cassino_hoyle", "diamond_cassino",
                                    "casino_aux_piques_seed000", "royal_cassino"])
def test_pending_points_equal_the_round_score_when_every_card_is_taken(preset: str) -> None:
    rules = Rules.preset(preset)
    state = State(rules, 2, seed=2)
    _play(state, {0: "medium", 1: "easy"})
    assert state.is_round_over or state.is_game_over
    summary = state.round_summaries[-1]
    sides = state.sides
    pend = pending_points(rule_values(rules), sides, state.captured, summary.sweeps,
                          len(state.unassigned))
    expected = score_round(rules, sides, state.captured, summary.sweeps, None)
    assert pend == pytest.approx([float(s.total) for s in expected])


def test_hint_gives_a_legal_move_and_a_reason() -> None:
    st = _position("10D", "10C 4H KH 7D", "5S 10H 9C QD")
    move, why = hint(st.view(0), seed=1, iterations=4)
    assert move == Move.capture(C("10C"), (0,))
    assert "10♦" in why and "sweep" in why and why.endswith(".")
    state = State(Rules.preset("classic"), 2, seed=30)
    for k in range(12):
        seat = state.current_player
        assert seat is not None
        move, why = hint(state.view(seat), seed=k, iterations=3)
        assert state.is_legal(move) and len(why) > 10
        state.apply(move)


# ------------------------------------------------------------------ the worker process
def test_worker_round_trip_matches_in_process_choice() -> None:
    state = State(Rules.preset("classic"), 2, seed=12)
    _play(state, {0: "medium", 1: "medium"}, moves=5)
    view = state.view(state.current_player)  # type: ignore[arg-type]

    async def run() -> tuple[list[Move], tuple[Move, str], int]:
        ticks = 0
        stop = False

        async def ticker() -> None:
            nonlocal ticks
            while not stop:
                await asyncio.sleep(0.005)
                ticks += 1

        async with AIWorker() as worker:
            t = asyncio.create_task(ticker())
            moves = [await worker.choose(view, level, seed=4, iterations=10)
                     for level in LEVELS]
            tip = await worker.hint(view, seed=4, iterations=10)
            stop = True
            await t
        return moves, tip, ticks

    moves, tip, ticks = asyncio.run(run())
    assert moves == [choose_move(view, level, seed=4, iterations=10) for level in LEVELS]
    assert tip == hint(view, seed=4, iterations=10)
    assert ticks > 0  # the event loop kept running while the worker thought


def test_worker_refuses_fork() -> None:
    with pytest.raises(ValueError):
        AIWorker(context="fork")


def test_levels_are_ordered_weakest_first() -> None:
    assert LEVELS == ("random", "easy", "medium", "hard")
