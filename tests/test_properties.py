"""Property tests: random legal play under every preset and player count.

Each example deals one round from a random seed and plays random legal moves (from a seeded
``random.Random``), checking at every step that every card is in exactly one place, that a
legal move exists, that every generated move applies, that move and position notation
round-trip, and at the end that the round's points add up to what the rules allow and that the
saved game replays to the same state.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, reject, settings
from hypothesis import strategies as st

from casino_tui.engine import (
    PRESET_NAMES,
    IllegalMoveError,
    Move,
    MoveEvent,
    Phase,
    Rules,
    RulesError,
    State,
    card_str,
    parse_cards,
    pile_cards,
)
from casino_tui.engine.cards import ACE, DIAMONDS, JACK, SPADES, make_card, rank_of, suit_of
from casino_tui.engine.notation import (
    format_move,
    format_position,
    parse_move,
    parse_position,
)
from casino_tui.engine.scoring import count_out_order, immediate_points
from casino_tui.engine.serialize import game_from_dict, game_to_dict

CASES: list[tuple[str, int]] = [
    (name, n) for name in PRESET_NAMES for n in Rules.preset(name).player_counts
]
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
MAX_MOVES_CHECKED = 150  # notation round-trip of at most this many legal moves per step

JS = make_card(JACK, SPADES)
AS = make_card(ACE, SPADES)
S2 = make_card(1, SPADES)
D7 = make_card(6, DIAMONDS)


# ------------------------------------------------------------------- scoring oracle
def spade_points(rules: Rules, card: int) -> int:
    """Per-spade points of RULES.md 5.4."""
    if suit_of(card) != SPADES or rules.spade_scoring == "none":
        return 0
    if rules.spade_scoring == "hoyle26":
        return 2 if card in (AS, JS, S2) else 1
    return 2 if card == JS else 1  # pagat24, seed002_25


def available_base_points(rules: Rules) -> int:
    """The most base points (everything but sweeps and penalties) one round can hand out."""
    deck = rules.deck_cards
    if rules.diamond_scoring:
        sets = sum(1 for r in (6, 5, ACE) if sum(rank_of(c) == r for c in deck) == 4)
        return 1 + 1 + (D7 in deck) + 2 * sets
    total = rules.cards_points + rules.last_capture_points
    if rules.spade_scoring != "pagat24":
        total += rules.majority_suit_points
    total += rules.big_casino_points if rules.big_casino in deck else 0
    if rules.spade_scoring != "hoyle26" and rules.little_casino in deck:
        total += rules.little_casino_points
    total += rules.ace_points * sum(rank_of(c) == ACE for c in deck)
    total += sum(spade_points(rules, c) for c in deck)
    return total + (rules.all_eleven_rule == "bonus_point")


def majority(counts: list[int], rules: Rules, in_deck: int) -> int | None:
    """The side that wins a "most" item (RULES.md 5.2), or None."""
    top = max(counts)
    if top == 0 or counts.count(top) != 1:
        return None
    if rules.majority_rule == "absolute_majority" and top < in_deck // 2 + 1:
        return None
    return counts.index(top)


def expected_items(state: State, sweeps: list[int]) -> tuple[list[dict[str, int]], int]:
    """Every side's round items per RULES.md section 5, from the final capture piles, and the
    base points nobody could score (ties, residue set aside, ...)."""
    rules = state.rules
    deck = rules.deck_cards
    pooled = [[c for s in side for c in state.captured[s]] for side in state.sides]
    items: list[dict[str, int]] = [{} for _ in state.sides]
    lost = 0

    def give(side: int | None, item: str, pts: int) -> None:
        nonlocal lost
        if pts <= 0:
            return
        if side is None:
            lost += pts
        else:
            items[side][item] = items[side].get(item, 0) + pts

    def holder(card: int) -> int | None:
        return next((i for i, p in enumerate(pooled) if card in p), None)

    side_sweeps = [sum(sweeps[s] for s in side) for side in state.sides]
    # Sweeps scored the moment they are made cannot be cancelled later: the engine ignores
    # sweeps_cancel under immediate scoring (RULES.md does not cover the combination).
    if rules.sweeps_cancel and rules.score_timing == "end_of_round":
        low = min(side_sweeps)
        side_sweeps = [x - low for x in side_sweeps]
    for i, x in enumerate(side_sweeps):
        if x and rules.sweep_points:
            items[i]["sweeps"] = x * rules.sweep_points
    counts = [len(p) for p in pooled]
    suits = [[sum(suit_of(c) == s for c in p) for s in range(4)] for p in pooled]
    if rules.diamond_scoring:
        give(majority(counts, rules, len(deck)), "cards", 1)
        n_d = sum(suit_of(c) == DIAMONDS for c in deck)
        give(majority([s[DIAMONDS] for s in suits], rules, n_d), "most_D", 1)
        if D7 in deck:
            give(holder(D7), "seven_of_diamonds", 1)
        for r in (6, 5, ACE):
            quartet = [c for c in deck if rank_of(c) == r]
            owners = {holder(c) for c in quartet}
            give(owners.pop() if len(owners) == 1 else None, "quartets", 2)
        return items, lost
    w = majority(counts, rules, len(deck))
    if w is None and rules.cards_tie_break == "most_spades":
        tied = [i for i, c in enumerate(counts) if c == max(counts)]
        sp = [suits[i][SPADES] for i in tied]
        if len(tied) > 1 and sp.count(max(sp)) == 1:
            w = tied[sp.index(max(sp))]
    give(w, "cards", rules.cards_points)
    suit = "SHDC".index(rules.majority_suit)
    if rules.spade_scoring != "pagat24":
        n_suit = sum(suit_of(c) == suit for c in deck)
        give(majority([s[suit] for s in suits], rules, n_suit), "most_" + rules.majority_suit,
             rules.majority_suit_points)
    if rules.big_casino in deck:
        give(holder(rules.big_casino), "big_casino", rules.big_casino_points)
    if rules.spade_scoring != "hoyle26" and rules.little_casino in deck:
        give(holder(rules.little_casino), "little_casino", rules.little_casino_points)
    for c in deck:
        if rank_of(c) == ACE:
            give(holder(c), "aces", rules.ace_points)
        if spade_points(rules, c):
            give(holder(c), "spade_cards", spade_points(rules, c))
    last = state.last_capturer
    give(None if last is None else state.side_of[last], "last_capture", rules.last_capture_points)
    if rules.all_eleven_rule == "bonus_point":
        winners = [i for i, it in enumerate(items)
                   if "cards" in it and "most_S" in it and "big_casino" in it
                   and "little_casino" in it and it.get("aces") == 4 * rules.ace_points]
        give(winners[0] if winners else None, "all_eleven", 1)
    return items, lost


def test_available_points_match_rules_md() -> None:
    """The bound derived from the options matches the totals RULES.md states per preset."""
    stated = {"classic": 11, "casino_aux_piques_seed000": 24, "spade_cassino_seed002": 25,
              "spade_cassino_hoyle": 26, "all_eleven_bonus": 12, "royal_cassino": 11,
              "california_cassino": 11, "diamond_cassino": 9, "danish_kortspil_seed001": 11,
              "five_player": 11}  # the 49-card deck keeps 2S and every ace
    for name, total in stated.items():
        assert available_base_points(Rules.preset(name)) == total, name


# -------------------------------------------------------------------------- playing
@dataclass
class RoundLog:
    immediate: list[dict[str, int]]
    penalties: int = 0
    moves: int = 0
    events: list[MoveEvent] = field(default_factory=list)


def check_moves_round_trip(state: State, legal: list[Move], rng: random.Random) -> None:
    sample = legal if len(legal) <= MAX_MOVES_CHECKED else rng.sample(legal, MAX_MOVES_CHECKED)
    for m in sample:
        text = format_move(state, m)
        assert parse_move(state, text) == m, text
    assert len({(m.kind, m.card, m.piles, m.value, m.court) for m in legal}) == len(legal), \
        "duplicate legal moves"


def check_position_round_trip(state: State, move: Move) -> None:
    """The position notation round-trips and the parsed position continues identically."""
    text = format_position(state)
    twin = parse_position(text, state.rules)
    assert format_position(twin) == text
    assert twin.legal_moves() == state.legal_moves()
    after = state.clone()
    after.apply(move)
    twin.apply(move)
    assert format_position(twin) == format_position(after)


def random_candidates(state: State, rng: random.Random, k: int) -> list[Move]:
    """Moves of every kind that may or may not be legal (random cards, piles and values)."""
    hand = state.hands[state.to_move]
    out: list[Move] = []
    if not hand or state.phase != Phase.PLAY:
        return out
    for _ in range(k):
        card = rng.choice(hand)
        piles = [i for i in range(len(state.table)) if rng.random() < 0.4]
        kind = rng.choice(("trail", "capture", "build"))
        if kind == "trail" or not piles:
            out.append(Move.trail(card))
        elif kind == "capture":
            out.append(Move.capture(card, piles))
        else:
            court = rng.random() < 0.1
            value = rng.randint(11, 13) if court else rng.randint(1, 16)
            out.append(Move.build(card, piles, value, rng.random() < 0.5, court))
    return out


def check_legality_is_consistent(state: State, rng: random.Random) -> None:
    """check_move (which decides without listing every move) agrees with legal_moves."""
    for m in random_candidates(state, rng, 12):
        legal = state.is_legal(m)
        try:
            got = state.check_move(m)
        except IllegalMoveError as e:
            assert not legal, f"legal move {m} refused ({e}) in {format_position(state)}"
            assert str(e) != "that move is not allowed here", \
                f"no reason given for {m} in {format_position(state)}"
        else:
            assert legal and got.same_action(m), f"{m} accepted in {format_position(state)}"


def check_every_move_applies(state: State, legal: list[Move], rng: random.Random) -> None:
    for m in legal if len(legal) <= 40 else rng.sample(legal, 40):
        c = state.clone()
        ev = c.apply(m)
        c.validate()
        assert ev.move.same_action(m)
        assert len(c.history) == len(state.history) + 1


def check_event(before: State, after: State, move: Move, ev: MoveEvent) -> None:
    if move.kind == "capture":
        taken = [c for i in move.piles for c in pile_cards(before.table[i])]
        assert sorted(ev.captured) == sorted([*taken, move.card])
        assert after.last_capturer == ev.seat or after.is_game_over or after.is_round_over
    if ev.sweep:
        assert move.kind == "capture" and len(move.piles) == len(before.table)
    if move.kind in ("trail", "capture", "build") and not ev.round_over and not ev.redeal:
        drew = 1 if ev.drew is not None else 0
        assert len(after.hands[ev.seat]) == len(before.hands[ev.seat]) - 1 + drew


def play_round(state: State, rng: random.Random, checks: bool = True) -> RoundLog:
    """Play random legal moves until the round or the game ends."""
    log = RoundLog(immediate=[{} for _ in state.sides])
    start_round = state.round_no
    if state.rules.score_timing != "end_of_round" and state.rules.sweep_points:
        # an Initial-pairs grant that cleared the table was scored during the deal
        for seat, n in enumerate(state.sweeps):
            if n:
                items = log.immediate[state.side_of[seat]]
                items["sweeps"] = items.get("sweeps", 0) + n * state.rules.sweep_points
    if state.initial_grant is not None and state.rules.score_timing == "all_immediate":
        # ... and so were the point cards it granted
        seat, granted = state.initial_grant
        items = log.immediate[state.side_of[seat]]
        for k, v in immediate_points(state.rules, granted).items():
            items[k] = items.get(k, 0) + v
    while state.phase in (Phase.PLAY, Phase.PLUCK):
        assert state.round_no == start_round
        legal = state.legal_moves()
        assert legal, f"no legal move in {format_position(state)}"
        choices = [m for m in legal if m.kind != "claim"]
        move = rng.choice(choices) if choices and rng.random() > 0.01 else rng.choice(legal)
        if checks:
            check_moves_round_trip(state, legal, rng)
            if rng.random() < 0.15:
                check_position_round_trip(state, move)
            if rng.random() < 0.1:
                check_every_move_applies(state, legal, rng)
            if rng.random() < 0.25:
                check_legality_is_consistent(state, rng)
        before = state.clone()
        ev = state.apply(move)
        state.validate()
        log.moves += 1
        log.events.append(ev)
        check_event(before, state, move, ev)
        for side, items in ev.immediate.items():
            for k, v in items.items():
                if k == "penalties":
                    continue
                log.immediate[side][k] = log.immediate[side].get(k, 0) + v
        log.penalties += ev.penalty
        assert len(state.history) == len(before.history) + 1
        assert state.history[-1] == move
    return log


def round_start_scores(state: State) -> list[int]:
    """Game scores before the current round (a deal can already score an initial sweep)."""
    return [s - r for s, r in zip(state.scores, state.round_immediate, strict=True)]


def check_round_points(state: State, log: RoundLog, start_scores: list[int]) -> None:
    """The finished round's items are exactly those of RULES.md section 5 and add up."""
    summary = state.round_summaries[-1]
    assert summary.round_no == state.round_no
    rules = state.rules
    got: list[dict[str, int]] = []
    for i, sc in enumerate(summary.scores):
        merged = Counter(sc.items)
        merged.update(log.immediate[i])
        got.append({k: v for k, v in merged.items() if v})
    want, lost = expected_items(state, list(summary.sweeps))
    assert got == want, (got, want)
    base = sum(v for it in got for k, v in it.items() if k != "sweeps")
    assert base == available_base_points(rules) - lost
    classic_items = (rules.cards_points, rules.majority_suit_points, rules.big_casino_points,
                     rules.little_casino_points, rules.ace_points, rules.last_capture_points)
    if (classic_items == (3, 1, 2, 1, 1, 0) and rules.spade_scoring == "none"
            and not rules.diamond_scoring and not state.unassigned):
        # RULES.md 5.1: 11 a round, 8 on a cards tie, 10 on a spades tie (plus any bonus)
        no_cards = all("cards" not in it for it in got)
        no_spades = all("most_S" not in it for it in got)
        bonus = sum(it.get("all_eleven", 0) for it in got)
        assert base == 11 - 3 * no_cards - 1 * no_spades + bonus
    if state.unassigned:
        assert state.last_capturer is None
    else:
        assert sum(len(c) for c in state.captured) == len(rules.deck_cards)
    # penalties and the game score
    n_sides = len(state.sides)
    assert sum(summary.immediate) == (sum(sum(it.values()) for it in log.immediate)
                                      + 2 * (n_sides - 1) * log.penalties)
    for i in range(n_sides):
        assert summary.game_scores[i] == start_scores[i] + summary.totals[i] + \
            summary.immediate[i]


def check_save_round_trip(state: State) -> None:
    data = json.loads(json.dumps(game_to_dict(state, extra={"k": 1})))
    back = game_from_dict(data)
    assert format_position(back) == format_position(state)
    assert back.history == state.history
    assert [s.totals for s in back.round_summaries] == [s.totals for s in state.round_summaries]


def round_example(rules: Rules, n: int, seed: int, play_seed: int) -> None:
    state = State(rules, n, seed)
    state.validate()
    rng = random.Random(play_seed)
    start_scores = round_start_scores(state)
    log = play_round(state, rng)
    if state.round_summaries:  # the round ended normally (not by a claim or instant win)
        check_round_points(state, log, start_scores)
    else:
        assert state.is_game_over and state.winner is not None
        assert any(ev.claim_won is not None or ev.immediate for ev in log.events)
    check_save_round_trip(state)
    text = format_position(state)
    assert format_position(parse_position(text, rules)) == text
    if state.is_round_over:  # into the next round: dealt from the seed, replays identically
        state.next_round()
        state.validate()
        for _ in range(rng.randrange(12)):
            if state.phase not in (Phase.PLAY, Phase.PLUCK):
                break
            legal = state.legal_moves()
            assert legal
            state.apply(rng.choice(legal))
            state.validate()
        check_save_round_trip(state)


@pytest.mark.parametrize(("preset", "players"), CASES)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, play_seed=SEEDS)
def test_random_round_every_preset(preset: str, players: int, seed: int,
                                   play_seed: int) -> None:
    round_example(Rules.preset(preset), players, seed, play_seed)


# Options that change how play goes, for rule sets beyond the presets.
PLAY_OPTIONS: dict[str, list[Any]] = {
    "owner_restriction": ["none", "variant1", "variant2", "variant3"],
    "ownership": ["last_to_add", "last_to_set_value"],
    "owner_must_keep_capture_card": [True, False, "penalty_2"],
    "same_value_builds": ["allowed", "must_merge"],
    "max_builds_per_player": [None, 1],
    "capture_extent": ["free", "inclusion_maximal"],
    "compulsory_capture": ["none", "no_trail_of_capturing_card", "strict"],
    "single_build_as_card": [False, True],
    "table_only_groups_in_builds": [True, False],
    "raise_own_build": [True, False],
    "court_capture": ["one", "all", "one_or_all_three", "any"],
    "court_builds": ["none", "natural_all_four", "natural_any"],
    "final_play_sweep": ["counts", "not_counted"],
    "sweeps_cancel": [False, True],
    "sweep_points": [0, 1, 2],
    "score_timing": ["end_of_round", "sweeps_immediate", "all_immediate"],
    "high_value_scope": ["capturer_only", "anywhere"],
    "table_clearer_card": [None, "5C", "5S"],
    "building": [True, False],
    "pluck": [False, True],
    "initial_pairs_to_first_player": [False, True],
    "game_end": ["highest_at_target", "count_out", "claim"],
}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(CASES), seed=SEEDS, play_seed=SEEDS,
       overrides=st.dictionaries(st.sampled_from(sorted(PLAY_OPTIONS)), st.integers(0, 3),
                                 max_size=5))
def test_random_round_mixed_options(case: tuple[str, int], seed: int, play_seed: int,
                                    overrides: dict[str, int]) -> None:
    preset, players = case
    opts = {k: PLAY_OPTIONS[k][i % len(PLAY_OPTIONS[k])] for k, i in overrides.items()}
    try:
        rules = Rules.preset(preset, **opts)
    except RulesError:
        reject()
    assume(players in rules.player_counts)
    round_example(rules, players, seed, play_seed)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(CASES), seed=SEEDS, play_seed=SEEDS)
def test_whole_games(case: tuple[str, int], seed: int, play_seed: int) -> None:
    """Play whole games: every round adds up, the winner fits the game-end rule, the save of
    the finished game replays."""
    preset, players = case
    rules = Rules.preset(preset)
    state = State(rules, players, seed)
    rng = random.Random(play_seed)
    for _ in range(30):
        start_scores = round_start_scores(state)
        log = play_round(state, rng, checks=False)
        if state.round_summaries and state.round_summaries[-1].round_no == state.round_no:
            check_round_points(state, log, start_scores)
        if state.is_game_over:
            break
        state.next_round()
    assert state.is_game_over, f"no winner after 30 rounds: {state.scores}"
    w = state.winner
    assert w is not None
    ended_by_round = (state.round_summaries and state.round_summaries[-1].winner == w
                      and state.round_summaries[-1].round_no == state.round_no)
    if (ended_by_round and rules.game_end == "highest_at_target"
            and rules.all_eleven_rule in ("none", "bonus_point")):
        assert state.scores[w] >= state.target
        assert all(state.scores[w] > s for i, s in enumerate(state.scores) if i != w)
    if rules.game_end == "fixed_rounds" and ended_by_round:
        rounds = players * (2 if rules.fixed_rounds == "2x_players" else 1)
        assert state.round_no >= rounds
    check_save_round_trip(state)


def test_deal_places_every_card_once() -> None:
    """Every preset's first deal puts each card of its deck in exactly one place."""
    for name, n in CASES:
        state = State(Rules.preset(name), n, 1)
        assert all(card_str(c) for c in state.all_card_places())
        assert sorted(state.all_card_places()) == sorted(state.rules.deck_cards)


def test_all_immediate_scores_point_cards_in_the_residue() -> None:
    rules = Rules.preset("classic", score_timing="all_immediate")
    state = parse_position("turn=0 table=3C,10D hands=5H/- last=0", rules, complete=False)
    state.apply(parse_move(state, "5H"))  # the last card: the residue goes to South
    assert sorted(state.captured[0]) == sorted(parse_cards("3C 10D 5H"))
    summary = state.round_summaries[-1]
    # most cards (3) and Big Casino (2): 10D comes with the residue, at once or at the end
    assert summary.totals[0] + summary.immediate[0] == 5


# ------------------------------------------------------------------- scoring details
def _final_round(rules: Rules, captured: list[str], last_card: str, last_capturer: int,
                 scores: list[int], sweeps: list[int] | None = None) -> State:
    """A two-player round whose only remaining card (seat 1's) is trailed to end it; the
    residue goes to ``last_capturer``."""
    piles = [parse_cards(c) for c in captured]
    state = State.from_position(rules, 2, table=[], hands=[[], parse_cards(last_card)],
                                to_move=1, captured=piles, sweeps=sweeps or [0, 0],
                                last_capturer=last_capturer, scores=scores, stock=[])
    state.apply(Move.trail(parse_cards(last_card)[0]))
    assert state.round_summaries
    return state


def test_count_out_spade_cards_right_after_most_spades() -> None:
    """D-GE-2: in a count-out, spade-card points come right after most_S, so P0 (55: cards 3,
    spades 1, spade cards 9) reaches 61 before P1 (57: Big Casino 2, Little Casino 1, ...)."""
    rules = Rules.preset("spade_cassino_seed002", game_end="count_out")
    order = count_out_order(rules)
    assert order[:3] == ("cards", "most_S", "spade_cards")
    assert order[-2:] == ("last_capture", "sweeps")
    p0 = ("JS 3S 4S 5S 6S 7S 8S 9S 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH "
          "2C 3C 4C 5C 6C 7C 8C")
    p1 = "AS 2S 10S QS KS AH AD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AC 10C JC QC KC"
    state = _final_round(rules, [p0, p1], "9C", 1, [55, 57])
    assert state.round_summaries[-1].totals == [13, 12]
    assert state.is_game_over and state.winner == 0


def test_count_out_last_capture_just_before_sweeps() -> None:
    """D-GE-2 in the Danish preset: P1's last-capture point (20 -> 21) is counted before P0's
    sweep; most_C takes most_S's place in the order."""
    rules = Rules.preset("danish_kortspil_seed001", game_end="count_out")
    order = count_out_order(rules)
    assert order[:2] == ("cards", "most_C") and order[-2:] == ("last_capture", "sweeps")
    deck = [card_str(c) for c in rules.deck_cards]
    p1 = ["3H", "4H"]
    p0 = [c for c in deck if c not in p1 and c != "5H"]
    state = _final_round(rules, [" ".join(p0), " ".join(p1)], "5H", 1, [10, 20],
                         sweeps=[1, 0])
    summary = state.round_summaries[-1]
    assert summary.scores[1].items == {"last_capture": 1}
    assert summary.scores[0].items["sweeps"] == 1
    assert state.is_game_over and state.winner == 1


def certain_points(state: State, side: int) -> int:
    """RULES.md 6.4 / D-GE-4 oracle: what a claimant's side has certainly won this round
    (majorities only once absolute; every sweep made), however it is timed."""
    rules = state.rules
    deck = rules.deck_cards
    cards = [c for s in state.sides[side] for c in state.captured[s]]
    sweeps = sum(state.sweeps[s] for s in state.sides[side]) * rules.sweep_points
    if rules.diamond_scoring:
        n_d = sum(suit_of(c) == DIAMONDS for c in deck)
        return (sweeps + (len(cards) > len(deck) // 2)
                + (sum(suit_of(c) == DIAMONDS for c in cards) > n_d // 2) + (D7 in cards)
                + sum(2 for r in (6, 5, ACE) if sum(rank_of(c) == r for c in cards) == 4))
    pts = sweeps + rules.cards_points * (len(cards) > len(deck) // 2)
    suit = "SHDC".index(rules.majority_suit)
    if rules.spade_scoring != "pagat24":
        n_suit = sum(suit_of(c) == suit for c in deck)
        if sum(suit_of(c) == suit for c in cards) > n_suit // 2:
            pts += rules.majority_suit_points
    for c in cards:
        pts += spade_points(rules, c) + rules.ace_points * (rank_of(c) == ACE)
        pts += rules.big_casino_points * (c == rules.big_casino)
        if rules.spade_scoring != "hoyle26":
            pts += rules.little_casino_points * (c == rules.little_casino)
    return pts


CLAIM_OPTIONS: dict[str, list[Any]] = {
    "score_timing": ["end_of_round", "sweeps_immediate", "all_immediate"],
    "spade_scoring": ["none", "pagat24", "seed002_25", "hoyle26"],
    "sweep_points": [1, 0, 2],
    "initial_pairs_to_first_player": [False, True],
    "owner_must_keep_capture_card": [True, "penalty_2"],
    "diamond_scoring": [False, True],
}


@settings(max_examples=150, deadline=None)
@given(seed=SEEDS, play_seed=SEEDS, players=st.sampled_from([2, 3, 4]),
       options=st.fixed_dictionaries({k: st.sampled_from(v) for k, v in CLAIM_OPTIONS.items()}),
       moves_before=st.integers(0, 60))
def test_claim_counts_each_point_once(seed: int, play_seed: int, players: int,
                                      options: dict[str, Any], moves_before: int) -> None:
    """A claim totals the game score before the round, the points certainly won this round
    (each once, whether it was scored when taken or is credited by the claim) and any Michigan
    penalties received: never an item twice (RULES.md 5.5, 6.4)."""
    if options["diamond_scoring"]:
        options = {**options, "deck": "40_no_courts", "hand_size": 3, "spade_scoring": "none"}
    rules = Rules.preset("call_out_21", target=200, **options)
    state = State(rules, players, seed)
    rng = random.Random(play_seed)
    start = round_start_scores(state)
    penalties = [0] * len(state.sides)
    for _ in range(moves_before):
        if state.phase not in (Phase.PLAY, Phase.PLUCK):
            break
        ev = state.apply(rng.choice([m for m in state.legal_moves() if m.kind != "claim"]))
        for side, items in ev.immediate.items():
            penalties[side] += items.get("penalties", 0)
    assume(state.phase is Phase.PLAY)
    side = state.side_of[state.to_move]
    expected = start[side] + certain_points(state, side) + penalties[side]
    before = list(state.scores)
    ev = state.apply(Move.claim())
    assert ev.claim_credit is not None
    assert before[side] + sum(ev.claim_credit.values()) == expected, (ev.claim_credit, before)
    assert ev.claim_won is (expected >= 200)


def test_claim_under_all_immediate_does_not_recount_aces() -> None:
    """The aces were added to the game score when taken (17 -> 19): the claim credits nothing
    more, so 19 < 21 and the claim fails."""
    rules = Rules.preset("call_out_21", score_timing="all_immediate")
    c = parse_cards
    state = State.from_position(rules, 2, table=c("AS 5H"), hands=[c("AH 3C"), c("4C 6C")],
                                to_move=0, scores=[17, 0], stock=[], complete=False)
    state.apply(Move.capture(c("AH")[0], [state.table.index(c("AS")[0])]))
    assert state.scores == [19, 0]
    state.apply(Move.trail(c("4C")[0]))
    ev = state.apply(Move.claim())
    assert ev.claim_credit == {}
    assert ev.claim_won is False and state.winner == 1 and state.scores == [19, 0]


def test_all_immediate_scores_granted_initial_pairs() -> None:
    """Initial pairs granted to the first player are captured: their aces score at once."""
    rules = Rules.preset("initial_pairs", score_timing="all_immediate")
    state = State(rules, 2, 72)
    assert state.initial_grant is not None
    seat, granted = state.initial_grant
    assert sorted(granted) == sorted(parse_cards("AS AC"))
    assert state.scores[state.side_of[seat]] == 2 and state.round_immediate[seat] == 2


def test_all_immediate_scores_a_plucked_spade() -> None:
    rules = Rules.preset("spade_cassino_seed002", pluck=True, score_timing="all_immediate")
    c = parse_cards
    state = State.from_position(rules, 2, table=c("5S 9H"), hands=[c("3C"), c("4C")],
                                to_move=0, stock=[], complete=False)
    ev = state.apply(Move.pluck(c("5S")[0]))
    assert ev.immediate == {0: {"spade_cards": 1}} and state.scores == [1, 0]
