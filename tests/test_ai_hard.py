"""Hard at every table size and in every preset: seeded games played to the end with Hard in
every seat (the special actions included: plucks, call-out claims, Michigan's duty, count-out,
sudden death), and what Hard infers from the other players' plays where more than two play."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from casino_tui.ai import choose_move, hint
from casino_tui.ai import infer as infer_mod
from casino_tui.ai.infer import InferringSampler, deal_plays
from casino_tui.ai.search import Sampler
from casino_tui.engine import PRESET_NAMES, Move, Rules, State, parse_card
from casino_tui.engine.cards import rank_of

C = parse_card
LOW_TARGET = 11  # games end sooner, and claims and sudden deaths come within reach


def _short_rules(preset: str, players: int = 2, **options: object) -> Rules:
    rules = Rules.preset(preset, **options)
    if rules.game_end == "fixed_rounds" and players > 2:  # california: 2 rounds a player
        options["game_end"] = "highest_at_target"
    elif rules.game_end == "fixed_rounds" or rules.target <= LOW_TARGET:
        return rules
    return Rules.preset(preset, target=LOW_TARGET, **options)


def _play_game(rules: Rules, players: int, seed: str) -> tuple[State, Counter[str]]:
    """A whole game, Hard in every seat (2 sampled deals a move); every move must be legal."""
    st = State(rules, players, seed=seed)
    kinds: Counter[str] = Counter()
    k = 0
    while not st.is_game_over:
        if st.is_round_over:
            st.next_round()
            continue
        assert st.round_no <= 30, "the game does not end"
        seat = st.current_player
        assert seat is not None
        move = choose_move(st.view(seat), "hard", seed=k, iterations=2)
        st.apply(move)  # validated: an illegal move raises
        kinds[move.kind] += 1
        k += 1
    return st, kinds


@pytest.fixture(autouse=True)
def _small_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fewer candidate deals for the inference: whole games stay cheap (the same code runs)."""
    monkeypatch.setattr(infer_mod, "POOL", 24)


def _base_players(preset: str) -> int:
    counts = Rules.preset(preset).player_counts
    return 2 if 2 in counts else counts[0]


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_hard_plays_a_whole_game_of_every_preset(preset: str) -> None:
    st, kinds = _play_game(_short_rules(preset), _base_players(preset), f"hard/{preset}")
    assert st.is_game_over and st.winner is not None
    if preset == "pluck_cassino":
        assert kinds["pluck"] or kinds["pass"]
    if preset == "call_out_21":
        assert kinds["claim"] == 1  # the game ends by a claim


@pytest.mark.parametrize(("preset", "players"), [
    ("classic", 3), ("classic", 4), ("california_cassino", 6),
    ("pluck_cassino", 4), ("call_out_21", 3), ("call_out_21", 4),
    ("michigan_sudden_death", 4), ("sudden_death", 3), ("draw_cassino", 4)])
def test_hard_plays_a_whole_game_at_every_table_size(preset: str, players: int) -> None:
    st, kinds = _play_game(_short_rules(preset, players), players, f"hard/{preset}/{players}")
    assert st.is_game_over and st.winner is not None
    if preset == "call_out_21":
        assert kinds["claim"] == 1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_hard_plays_a_count_out_game_to_the_end(players: int) -> None:
    st, _ = _play_game(_short_rules("classic", players, game_end="count_out"), players,
                       f"hard/count_out/{players}")
    assert st.is_game_over and st.winner is not None


def test_the_hint_is_hards_move() -> None:
    st = State(Rules.preset("classic"), 3, seed=8)
    for k in range(7):  # some plays of the deal to infer from
        st.apply(choose_move(st.view(st.current_player or 0), "medium", seed=k))
    view = st.view(st.current_player or 0)
    assert InferringSampler(view).informed
    move, why = hint(view, seed=5, iterations=30)
    assert move == choose_move(view, "hard", seed=5, iterations=30) and why


# ------------------------------------------------------------------ inference at any table
def _trailed_past_the_big_casino(preset: str, players: int, trailer: int) -> State:
    """``trailer`` (first to play) trailed the three of clubs with the ten of diamonds (two
    points) and a six on the table; nobody else has played, and no ten is in a hand shown."""
    rules = Rules.preset(preset)
    deck = [c for c in rules.deck_cards if c not in (C("3C"), C("10D"), C("6C"))]
    random.Random(players).shuffle(deck)
    no_tens = [c for c in deck if rank_of(c) != 9]
    hands = [no_tens[4 * i:4 * i + 4] for i in range(players)]
    hands[trailer][0] = C("3C")
    used = {c for h in hands for c in h} | {C("10D"), C("6C")}
    stock = [c for c in rules.deck_cards if c not in used]
    st = State.from_position(rules, players, table=[C("10D"), C("6C")], hands=hands,
                             to_move=trailer, dealer=(trailer - 1) % players, stock=stock,
                             complete=True)
    st.apply(Move.trail(C("3C")))
    return st


def _tens_held(sampler: Sampler, seat: int, size: int) -> float:
    rng = random.Random(4)
    counts: Counter[int] = Counter()
    for _ in range(300):
        hands, stock = sampler.deal(rng)
        assert len(hands[seat]) == size and len(stock) == sampler.view.stock_size
        assert not set(hands[seat]) & set(sampler.view.hand)
        counts.update(rank_of(c) for c in hands[seat])
    return counts[9] / 300


@pytest.mark.parametrize(("preset", "players", "trailer", "viewer"), [
    ("classic", 3, 1, 0),  # three players: the next seat
    ("classic", 3, 2, 0),  # three players: the seat before
    ("classic", 4, 1, 0),  # partnerships: an opponent
    ("classic", 4, 2, 0),  # partnerships: the partner's hand is hidden too
    ("five_player", 5, 3, 0),
    ("california_cassino", 6, 4, 1)])
def test_a_player_who_trailed_past_the_big_casino_holds_no_ten_at_any_table(
        preset: str, players: int, trailer: int, viewer: int) -> None:
    st = _trailed_past_the_big_casino(preset, players, trailer)
    view = st.view(viewer)
    replayed = deal_plays(view)
    assert [(s, m) for s, _t, m in replayed] == [(trailer, Move.trail(C("3C")))]
    inferred = InferringSampler(view, pool=256)
    assert [e[0] for e in inferred.evidence] == [trailer]
    uniform, after = _tens_held(Sampler(view), trailer, 3), _tens_held(inferred, trailer, 3)
    assert uniform > 0.1
    assert after < uniform / 3


def test_a_seat_never_learns_from_its_own_plays() -> None:
    st = _trailed_past_the_big_casino("classic", 4, 1)
    assert not InferringSampler(st.view(1)).informed


def test_the_plays_of_a_deal_replay_at_every_table_size() -> None:
    for preset, players in (("classic", 3), ("classic", 4), ("five_player", 5),
                            ("california_cassino", 6)):
        st = State(Rules.preset(preset), players, seed=3)
        pick = random.Random(players)
        while not st.is_round_over:
            seat = st.current_player
            assert seat is not None
            view = st.view(seat)
            replayed = deal_plays(view)
            assert [m for _s, _t, m in replayed] == list(view.deal_plays)
            assert [s for s, _t, _m in replayed] == [(view.dealer + 1 + i) % players
                                                    for i in range(len(replayed))]
            moves = st.legal_moves()
            st.apply(moves[pick.randrange(len(moves))])


def test_no_inference_where_players_draw_after_each_play() -> None:
    """In draw mode a hand at an earlier play is not the hand now plus the later plays (cards
    were drawn since): the deals are drawn as the plain sampler draws them."""
    st = State(Rules.preset("draw_cassino"), 3, seed=2)
    for k in range(5):
        st.apply(choose_move(st.view(st.current_player or 0), "medium", seed=k))
    view = st.view(st.current_player or 0)
    assert view.deal_plays and deal_plays(view)
    assert not InferringSampler(view).informed


def test_the_inference_stops_weighing_deals_when_the_time_is_up() -> None:
    """Under a time budget the search tells the sampler its deadline: past it, the sampler
    weighs only the first ``MIN_POOL`` deals (with a fixed effort, no deadline: all of them)."""
    view = _trailed_past_the_big_casino("classic", 4, 1).view(0)
    late = InferringSampler(view, pool=256)
    late.deadline = 0.0  # long past
    late.deal(random.Random(1))
    on_time = InferringSampler(view, pool=256)
    on_time.deal(random.Random(1))
    assert (len(late._pool), len(on_time._pool)) == (infer_mod.MIN_POOL, 256)


def test_the_search_gives_the_sampler_its_deadline_only_under_a_time_budget() -> None:
    from casino_tui.ai.search import search

    st = State(Rules.preset("classic"), 2, seed=4)
    view = st.view(st.current_player or 0)
    timed, fixed = InferringSampler(view), InferringSampler(view)
    search(view, seed=1, budget=0.05, sampler=timed)
    search(view, seed=1, budget=None, iterations=3, sampler=fixed)
    assert isinstance(timed.deadline, float) and fixed.deadline is None


@pytest.mark.parametrize("preset", ["draw_cassino", "casino_a_la_tire_seed000"])
def test_where_players_draw_after_each_play_hard_searches_as_hard_v1(preset: str) -> None:
    """Nothing to infer there, and the wider search alone measured worse: Hard is hard-v1."""
    st = State(Rules.preset(preset), 2, seed=5)
    k = 0
    while not st.is_round_over and k < 30:
        view = st.view(st.current_player or 0)
        move = choose_move(view, "hard", seed=k, iterations=20)
        assert move == choose_move(view, "hard-v1", seed=k, iterations=20)
        st.apply(move)
        k += 1
