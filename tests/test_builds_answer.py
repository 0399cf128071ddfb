"""One card cannot answer for two builds (issue 13, item 4).

RULES.md 2.5: with the owner obligations and the retain rule the mover always has a legal move
and no build survives the end of a deal. That needs more than "every owned build has some card
that takes it": a card with two values (an ace worth 1 or 14, Danish 10D 10/16 and 2C 2/15,
Buckeye 10D 10/11) can take a build of either value, but only one of them, because a capture
declares one value (1.2). So the cards in an owner's hand must answer for all of that player's
builds at once, each build value by a different card. Builds of the same value are taken
together by one card (G4), so they share one.

The positions are the ones where the engine used to allow a second build that the same card
had to answer for; the property tests play random legal games under every preset (and the
dual-valued variants) and check the two consequences of 2.5 at every step.
"""

from __future__ import annotations

import random
from itertools import permutations

import pytest

from casino_tui.engine import PRESET_NAMES, IllegalMoveError, Move, Phase, Rules, State
from casino_tui.engine.cards import parse_card, rank_of
from casino_tui.engine.moves import Build
from casino_tui.engine.notation import legal_move_notations, parse_move, parse_position

ROYAL_LOW_TABLE = Rules.preset("royal", ace_high_value=14, high_value_scope="capturer_only",
                               sweep_points=1)
ISSUE_POSITION = "turn=0 table=4S,7C,9S,9D,[ADAC=1m@0] hands=ASAH9H/2C3C5C"


def _state(rules: Rules, text: str) -> State:
    return parse_position(text, rules, complete=False)


def _refusal(state: State, text: str) -> str:
    with pytest.raises(IllegalMoveError) as err:
        parse_move(state, text)
    return str(err.value)


# ---------------------------------------------------------------- the positions of the issue
def test_an_ace_cannot_answer_for_a_build_of_1_and_one_of_14() -> None:
    state = _state(ROYAL_LOW_TABLE, ISSUE_POSITION)
    legal = legal_move_notations(state)
    for bad in ("AH>4S+9S=14", "AS>4S+9S=14", "AH>4S+9D=14", "AS>4S+9D=14"):
        assert bad not in legal
    # the moves that keep one card for each build are still there
    for good in ("AH>[ADAC]=1", "AHx[ADAC]", "ASx[ADAC]", "9Hx9S+9D"):
        assert good in legal
    why = _refusal(state, "AH>4S+9S=14")
    assert why == ("you would own builds of 1 and 14 with only AS to take them: "
                   "each build needs its own card")
    move = Move.build(parse_card("AH"), (0, 2), 14, True)
    with pytest.raises(IllegalMoveError, match="each build needs its own card"):
        state.check_move(move)


def test_a_dual_valued_card_may_answer_for_one_build_of_either_value() -> None:
    """Without a build of 1, the same 14 is fine: AS is left to take it."""
    state = _state(ROYAL_LOW_TABLE, "turn=0 table=4S,7C,9S,9D hands=ASAH9H/2C3C5C")
    assert "AH>4S+9S=14" in legal_move_notations(state)


def test_same_value_builds_share_one_card() -> None:
    """Two builds of 8 owned by one player are taken together by one 8 (G4), so a second,
    separate build of 8 needs no second 8 (BLD-12 made by the owner himself)."""
    state = _state(Rules.preset("classic"), "turn=0 table=6D,[5S3H=8s@0] hands=2C8H/3C4C5C")
    legal = legal_move_notations(state)
    assert "2C>6D=8" in legal and "2C>6D+[5S3H]=8" in legal


def test_buckeye_ten_of_diamonds_build_of_11_next_to_a_build_of_10() -> None:
    rules = Rules.preset("buckeye")
    state = _state(rules, "turn=0 table=6H,[4S6S=10s@0] hands=10D5H/2C3C")
    assert "5H>6H=11" not in legal_move_notations(state)
    assert _refusal(state, "5H>6H=11") == (
        "you would own builds of 10 and 11 with only 10D to take them: "
        "each build needs its own card")
    # with a second ten in hand each build has its card
    state = _state(rules, "turn=0 table=6H,[4S6S=10s@0] hands=10D5H10C/2C3C4C")
    assert "5H>6H=11" in legal_move_notations(state)


def test_buckeye_capture_may_not_spend_the_second_card() -> None:
    """Owning builds of 10 and 11 with 10D and 10H: 10H taking the loose 10C would leave 10D
    alone for both builds; taking the build of 10 with it is fine."""
    rules = Rules.preset("buckeye")
    state = _state(rules, "turn=0 table=10C,[4S6S=10s@0],[5H6H=11s@0] hands=10D10H/2C3C")
    legal = legal_move_notations(state)
    assert "10Hx10C" not in legal
    assert "10Hx[4S6S]" in legal and "10Dx[5H6H]" in legal
    assert _refusal(state, "10Hx10C") == (
        "you would own builds of 10 and 11 with only 10D to take them: "
        "each build needs its own card")


def test_danish_two_of_clubs_and_ten_of_diamonds() -> None:
    """Danish values with more than one build allowed: 2C (2 or 15) cannot take a build of 2
    and a build of 15; 10D (10 or 16) cannot take a build of 10 and one of 16."""
    rules = Rules.preset("danish", max_builds_per_player=None)
    state = _state(rules, "turn=0 table=6S,[AHAD=2s@0] hands=2C9H/3C4C")
    assert "9H>6S=15" not in legal_move_notations(state)
    assert "with only 2C to take them" in _refusal(state, "9H>6S=15")
    state = _state(rules, "turn=0 table=7S,[4H6H=10s@0] hands=10D9H/3C4C")
    assert "9H>7S=16" not in legal_move_notations(state)
    assert "with only 10D to take them" in _refusal(state, "9H>7S=16")


def test_owner_restriction_none_may_not_trail_the_second_card() -> None:
    """Trailing is allowed to a build owner with owner_restriction=none, but only while every
    build keeps its own card."""
    rules = ROYAL_LOW_TABLE.with_options(owner_restriction="none")
    state = _state(rules, "turn=0 table=5C,[ADAC=1m@0],[4S10S=14s@0] hands=ASAH9H/2C3C4C")
    legal = legal_move_notations(state)
    assert "9H" in legal
    assert "AH" not in legal and "AS" not in legal
    assert "each build needs its own card" in _refusal(state, "AH")


def test_michigan_duty_counts_a_card_answering_for_two_builds() -> None:
    """Michigan (penalty_2) lets the move stand but charges the duty."""
    rules = Rules.preset("michigan", court_values="royal", ace_high_value=14)
    state = _state(rules, ISSUE_POSITION)
    ev = state.apply(parse_move(state, "AH>4S+9S=14"))
    assert ev.penalty
    state = _state(rules, ISSUE_POSITION)
    ev = state.apply(parse_move(state, "AH>[ADAC]=1"))
    assert not ev.penalty


# ---------------------------------------------------------------- random play
def answer_classes(state: State, seat: int) -> list[tuple[int, bool]]:
    """The distinct (value, court) of the builds ``seat`` owns: one card must take each."""
    return sorted({(p.value, p.court) for p in state.table
                   if isinstance(p, Build) and p.owner == seat})


def takes(rules: Rules, card: int, value: int, court: bool) -> bool:
    if court:
        return rank_of(card) + 1 == value
    return value in rules.capturer_values[card]


def hand_answers(rules: Rules, hand: list[int], classes: list[tuple[int, bool]]) -> bool:
    """Brute force: some ordering of the hand gives each build value its own card."""
    if len(classes) > len(hand):
        return False
    return any(all(takes(rules, c, v, court) for c, (v, court) in zip(cards, classes,
                                                                          strict=False))
               for cards in permutations(hand, len(classes)))


def pick(state: State, rng: random.Random) -> Move:
    """A random legal move, leaning towards builds so that owners pile them up."""
    legal = state.legal_moves()
    builds = [m for m in legal if m.kind == "build"]
    if builds and rng.random() < 0.7:
        return rng.choice(builds)
    return rng.choice(legal)


def last_play_of_deal(state: State) -> bool:
    return (state.phase is Phase.PLAY and sum(len(h) for h in state.hands) == 1
            and not (state.rules.draw_mode and state.stock))


def check_every_move(state: State) -> None:
    """Every legal move of a mover holding a dual-valued card leaves a card for each build."""
    rules = state.rules
    seat = state.to_move
    if not any(len(rules.capturer_values[c]) > 1 for c in state.hands[seat]):
        return
    for move in state.legal_moves():
        if move.kind not in ("build", "capture", "trail"):
            continue
        after = state.clone()
        after.apply(move, validate=False)
        if after.phase in (Phase.PLAY, Phase.PLUCK):
            classes = answer_classes(after, seat)
            assert hand_answers(rules, after.hands[seat], classes), (
                f"{move} leaves seat {seat} builds {classes} with {after.hands[seat]}: "
                f"{state!r}")


def play_checked(rules: Rules, players: int, seed: int, rounds: int) -> int:
    """Random legal play; returns how many positions had a build on the table."""
    state = State(rules, players, seed)
    rng = random.Random(seed)
    retain = rules.owner_must_keep_capture_card is True
    with_builds = 0
    for _ in range(rounds):
        while state.phase in (Phase.PLAY, Phase.PLUCK):
            if retain:
                for seat in range(players):
                    classes = answer_classes(state, seat)
                    assert hand_answers(rules, state.hands[seat], classes), (
                        f"seat {seat} cannot answer for builds {classes} with "
                        f"{state.hands[seat]}: {state!r}")
                if state.phase is Phase.PLAY:
                    check_every_move(state)
            with_builds += any(isinstance(p, Build) for p in state.table)
            move = pick(state, rng)
            if retain and last_play_of_deal(state):
                left = [i for i, p in enumerate(state.table) if isinstance(p, Build)
                        and not (move.kind == "capture" and i in move.piles)]
                assert not left, f"builds survive the deal after {move}: {state!r}"
            ev = state.apply(move)
            if retain and ev.redeal:
                assert not any(isinstance(p, Build) for p in state.table)
        if state.is_game_over:
            break
        state.next_round()
    return with_builds


CASES = [(name, n) for name in PRESET_NAMES for n in Rules.preset(name).player_counts]

# the presets with a dual-valued card, and variants that let such a card meet two builds
DUAL_VALUED = [
    ("royal_cassino", {}),
    ("royal_cassino", {"high_value_scope": "capturer_only"}),
    ("buckeye_cassino", {}),
    ("danish_kortspil_seed001", {"max_builds_per_player": None}),
    ("danish_kortspil_seed001", {"max_builds_per_player": None, "same_value_builds": "allowed",
                                 "compulsory_capture": "none"}),
]


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_random_play_every_preset_keeps_a_card_for_each_build(preset: str,
                                                              players: int) -> None:
    rules = Rules.preset(preset)
    for seed in range(2):
        play_checked(rules, players, 1000 * players + seed, rounds=1)


@pytest.mark.parametrize(("preset", "overrides"), DUAL_VALUED)
def test_random_play_dual_valued_cards_keep_a_card_for_each_build(
        preset: str, overrides: dict[str, object]) -> None:
    rules = Rules.preset(preset, **overrides)
    seen = 0
    for players in rules.player_counts:
        for seed in range(40):
            seen += play_checked(rules, players, seed, rounds=1)
    assert seen > 500  # the play did build


def test_hard_ai_worlds_give_each_build_value_its_own_card() -> None:
    """The hard computer deals the hidden cards so that a build owner can answer for all his
    builds: an opponent owning builds of 1 and 14 gets two cards for them (here both aces)."""
    from casino_tui.ai.search import Sampler

    state = _state(ROYAL_LOW_TABLE, "turn=0 table=5C,[ADAC=1m@1],[4S10S=14s@1] "
                                    "hands=9H3C/ASAH2C stock=6D7D8D")
    sampler = Sampler(state.view(0))
    assert sampler.hidden
    rng = random.Random(5)
    for _ in range(30):
        world = sampler.sample(rng)
        assert hand_answers(ROYAL_LOW_TABLE, world.hands[1], answer_classes(world, 1))
