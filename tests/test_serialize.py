"""Saved games: game_to_dict / game_from_dict, replay and their errors."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from casino_tui.engine import CasinoError, Rules, State, serialize
from casino_tui.engine.notation import (
    compass_names,
    format_move,
    format_position,
    parse_move,
    parse_position,
)
from casino_tui.engine.serialize import (
    FORMAT_NAME,
    FORMAT_VERSION,
    ReplayError,
    SaveFormatError,
    describe_history,
    game_from_dict,
    game_from_json,
    game_summary,
    game_to_dict,
    game_to_json,
    history_notation,
    replay,
)

CLASSIC = Rules.preset("classic")


def play(state: State, moves: int, seed: int = 0) -> State:
    """Play up to ``moves`` random legal moves, starting new rounds as needed."""
    rng = random.Random(seed)
    for _ in range(moves):
        if state.is_game_over:
            break
        if state.is_round_over:
            state.next_round()
        legal = [m for m in state.legal_moves() if m.kind != "claim"] or state.legal_moves()
        state.apply(rng.choice(legal))
    return state


def same_game(a: State, b: State) -> None:
    assert format_position(a) == format_position(b)
    assert a.history == b.history
    assert [s.totals for s in a.round_summaries] == [s.totals for s in b.round_summaries]


def test_fresh_game_round_trip() -> None:
    state = State(CLASSIC, 2, seed=5)
    data = game_to_dict(state)
    assert data["format"] == FORMAT_NAME and data["version"] == FORMAT_VERSION
    assert data["rules"] == {"preset": "classic", "overrides": {}}
    assert data["num_players"] == 2 and data["seed"] == 5 and data["moves"] == []
    assert data["position"] == format_position(state)
    assert "extra" not in data
    same_game(game_from_dict(data), state)


def test_dict_contents_and_summary() -> None:
    state = play(State(Rules.preset("royal", target=11), 4, seed="abc"), 30)
    data = game_to_dict(state, extra={"names": ["A", "B", "C", "D"], "ai": {"1": "easy"}})
    assert json.loads(json.dumps(data)) == data  # JSON-able as is
    assert data["rules"] == {"preset": "royal_cassino", "overrides": {"target": 11}}
    assert data["seed"] == "abc" and len(data["moves"]) == 30
    assert data["extra"] == {"names": ["A", "B", "C", "D"], "ai": {"1": "easy"}}
    assert data["summary"] == game_summary(state)
    summary = data["summary"]
    assert summary["sides"] == [[0, 2], [1, 3]] and summary["to_move"] == state.to_move
    assert summary["finished"] is False and summary["winner"] is None
    back = game_from_dict(data)
    same_game(back, state)
    assert back.rules == state.rules


def test_moves_are_written_against_the_position_before_them() -> None:
    state = State(CLASSIC, 2, seed=7)
    first = state.legal_moves()[0]
    text = format_move(state, first)
    state.apply(first)
    second = state.legal_moves()[-1]
    text2 = format_move(state, second)
    state.apply(second)
    assert history_notation(state) == [text, text2]
    assert game_to_dict(state)["moves"] == [text, text2]


def test_round_over_and_next_round_round_trip() -> None:
    state = State(CLASSIC, 3, seed=9)
    while not state.is_round_over:
        state.apply(state.legal_moves()[0])
    data = game_to_dict(state)
    back = game_from_dict(data)
    assert back.is_round_over
    same_game(back, state)
    # a game saved right after next_round(), before any move of the new round
    state.next_round()
    back = game_from_dict(game_to_dict(state))
    assert back.round_no == 2 and not back.is_round_over
    same_game(back, state)
    play(state, 5)
    same_game(game_from_dict(json.loads(game_to_json(state))), state)


@pytest.mark.parametrize("preset", ["classic", "pluck_cassino", "call_out_21", "draw_cassino",
                                    "michigan_sudden_death", "initial_pairs",
                                    "california_cassino"])
def test_whole_games_round_trip(preset: str) -> None:
    rules = Rules.preset(preset)
    for n in rules.player_counts[:2]:
        state = play(State(rules, n, seed=n), 600, seed=n)
        back = game_from_json(game_to_json(state, {"n": n}))
        same_game(back, state)
        assert back.is_game_over and state.winner is not None
        assert back.winner == state.winner


def _fresh_save(state: State, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """game_to_dict with no replay kept from an earlier save: every move replayed from the
    seed."""
    with monkeypatch.context() as patch:
        patch.setattr(serialize, "_REPLAYS", {})
        return game_to_dict(state)


def test_a_save_after_every_move_is_the_save_of_a_replay_from_the_seed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A save goes on from the replay of the game's previous save (serialize._REPLAYS): the
    same record as a save that replays every move, across rounds, after next_round(), after
    an undo (a shorter history), for a game of the same seed that went another way, and for an
    earlier copy of the game whose round has not started yet."""
    state = State(CLASSIC, 2, seed=3)
    rng = random.Random(3)
    copies: list[State] = []
    while not state.is_game_over and len(state.history) < 70:
        if state.is_round_over:
            copies.append(state.clone())
            state.next_round()
        else:
            state.apply(rng.choice(state.legal_moves()))
        assert game_to_dict(state) == _fresh_save(state, monkeypatch)
    assert state.round_no >= 2 and copies
    ended = copies[0]  # the first round over: saved after the next round started, then not
    started = ended.clone()
    started.next_round()
    game_to_dict(started)
    assert game_to_dict(ended) == _fresh_save(ended, monkeypatch)
    undone = State(CLASSIC, 2, seed=3)
    for move in state.history[:20]:
        if undone.is_round_over:
            undone.next_round()
        undone.apply(move)
    game_to_dict(state)
    assert game_to_dict(undone) == _fresh_save(undone, monkeypatch)
    other = play(State(CLASSIC, 2, seed=3), 30, seed=99)
    assert other.history[:30] != state.history[:30]
    assert game_to_dict(other) == _fresh_save(other, monkeypatch)
    same_game(game_from_dict(game_to_dict(state)), state)


def test_a_move_that_does_not_replay_is_refused_after_earlier_saves() -> None:
    """The moves replayed by earlier saves are not replayed again, but every new one is: a move
    added to the history that the position does not allow cannot be saved."""
    state = play(State(CLASSIC, 2, seed=5), 12, seed=5)
    game_to_dict(state)
    state.history.append(state.history[-1])  # the card just played, played again
    with pytest.raises(ReplayError, match="move 13 of the game's history"):
        game_to_dict(state)
    state.history.pop()
    assert game_to_dict(state)["moves"] == history_notation(state)


def test_replay_function() -> None:
    state = play(State(CLASSIC, 2, seed=4), 60, seed=4)
    moves = history_notation(state)
    again = replay(CLASSIC, 2, 4, moves, rounds=state.round_no)
    same_game(again, state)
    assert replay(CLASSIC, 2, 4, []).history == []


def test_replay_reports_the_bad_move() -> None:
    state = play(State(CLASSIC, 2, seed=4), 10)
    moves = history_notation(state)
    moves[6] = "KSx2D"
    with pytest.raises(ReplayError, match=r"move 7 \(KSx2D\) cannot be replayed in round 1"):
        replay(CLASSIC, 2, 4, moves)


def test_start_position() -> None:
    start = ("turn=0 dealer=1 table=3C,6D hands=9S5H/4D8C stock=- taken=-/- seed=1")
    state = parse_position(start, CLASSIC, complete=False)
    state.apply(state.legal_moves()[0])
    with pytest.raises(ReplayError):
        game_to_dict(state)  # not dealt from its seed
    # a start position must be complete to be saved
    full = State(CLASSIC, 2, seed=2)
    custom = parse_position(format_position(full).replace("seed=2", "seed=99"), CLASSIC)
    text = format_position(custom)
    play(custom, 12)
    data = game_to_dict(custom, start_position=text)
    assert data["start_position"] == text
    same_game(game_from_dict(data), custom)


def test_describe_history() -> None:
    state = play(State(Rules.preset("initial_pairs"), 2, seed=1), 60, seed=2)
    lines = describe_history(state, compass_names(2))
    assert lines[0] == "Round 1"
    assert "Round 2" in lines
    moves = [ln for ln in lines if not ln.startswith("Round ") and " was given " not in ln]
    assert len(moves) == 60
    assert all(ln.startswith(("South ", "North ")) for ln in lines if not ln.startswith("Round"))


# ------------------------------------------------------------------------------ errors
@pytest.fixture
def saved() -> dict[str, Any]:
    return game_to_dict(play(State(CLASSIC, 2, seed=8), 20))


def _broken(saved: dict[str, Any], **changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(saved)
    for k, v in changes.items():
        if v is KeyError:
            del data[k]
        else:
            data[k] = v
    return data


@pytest.mark.parametrize(("changes", "error", "message"), [
    ({"format": "chess-pgn"}, SaveFormatError, "not a casino-tui saved game"),
    ({"format": KeyError}, SaveFormatError, "not a casino-tui saved game"),
    ({"version": 2}, SaveFormatError, "newer casino-tui .* version 2.* up to version 1"),
    ({"version": "1"}, SaveFormatError, "'version' should be a whole number"),
    ({"version": True}, SaveFormatError, "'version' should be a whole number"),
    ({"version": 0}, SaveFormatError, "unknown save format version 0"),
    ({"rules": "classic"}, SaveFormatError, "'rules' should be an object"),
    ({"rules": {"preset": "poker"}}, SaveFormatError, "rules are not valid: unknown preset"),
    ({"rules": {"preset": "classic", "overrides": {"target": "x"}}}, SaveFormatError,
     "rules are not valid: option target"),
    ({"rules": {"preset": "classic", "overrides": {"count_out_order": 5}}}, SaveFormatError,
     "rules are not valid"),
    ({"rules": {"preset": "classic", "overrides": {"count_out_order": [[1]]}}}, SaveFormatError,
     "rules are not valid"),
    ({"rules": {"preset": "classic", "overrides": {"colour": 1}}}, SaveFormatError,
     "unknown rule option"),
    ({"num_players": 7}, SaveFormatError, "cannot be played by 7 players"),
    ({"num_players": KeyError}, SaveFormatError, "no 'num_players'"),
    ({"seed": 1.5}, SaveFormatError, "'seed' should be a number or text"),
    ({"moves": "AC>5H=6"}, SaveFormatError, "'moves' should be a list"),
    ({"moves": [1, 2]}, SaveFormatError, "saved moves must be text"),
    ({"position": 5}, SaveFormatError, "position must be a position string"),
    ({"position": "turn=0 nonsense"}, SaveFormatError, "saved position cannot be read"),
    ({"start_position": ["x"]}, SaveFormatError, "start_position must be"),
    ({"start_position": "turn=0"}, SaveFormatError, "start position cannot be read"),
    ({"seed": 9}, ReplayError, "does not belong to this game"),
])
def test_malformed_saves(saved: dict[str, Any], changes: dict[str, Any], error: type,
                         message: str) -> None:
    with pytest.raises(error, match=message):
        game_from_dict(_broken(saved, **changes))


def test_not_a_dict() -> None:
    bad: Any
    for bad in (None, [], "game", 3):
        with pytest.raises(SaveFormatError, match="must be a JSON object"):
            game_from_dict(bad)
    with pytest.raises(SaveFormatError, match="must be JSON"):
        game_from_json("{not json")


def test_tampered_position_is_detected(saved: dict[str, Any]) -> None:
    pos = saved["position"]
    tampered = pos.replace("score=0/0", "score=5/0")
    assert tampered != pos
    with pytest.raises(ReplayError, match="fields that differ: score"):
        game_from_dict(_broken(saved, position=tampered))


def test_tampered_moves_are_detected(saved: dict[str, Any]) -> None:
    with pytest.raises(ReplayError, match="move 21"):
        game_from_dict(_broken(saved, moves=[*saved["moves"], "-"]))
    with pytest.raises(ReplayError, match="does not reach the saved position"):
        game_from_dict(_broken(saved, moves=saved["moves"][:-1]))


def test_moves_after_game_over() -> None:
    state = play(State(Rules.preset("call_out_21"), 2, seed=1), 5)
    state_moves = history_notation(state)
    rules = Rules.preset("call_out_21")
    st2 = State(rules, 2, seed=1)
    for text in state_moves:
        st2.apply(parse_move(st2, text))
    st2.apply(parse_move(st2, "claim"))
    assert st2.is_game_over
    data = game_to_dict(st2)
    data["moves"].append("claim")
    with pytest.raises(ReplayError, match="after the end of the game"):
        game_from_dict(data)


def test_extra_must_be_json() -> None:
    state = State(CLASSIC, 2, seed=1)
    with pytest.raises(SaveFormatError, match="not JSON-able"):
        game_to_dict(state, extra={"f": object()})
    with pytest.raises(SaveFormatError, match="must be a dict"):
        game_to_dict(state, extra=[1, 2])  # type: ignore[arg-type]


def test_position_key_absent_still_replays(saved: dict[str, Any]) -> None:
    data = _broken(saved, position=KeyError)
    assert format_position(game_from_dict(data)) == saved["position"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 60) | st.floats(allow_nan=False)
    | st.text(max_size=12) | st.sampled_from(["classic", "royal", "2H>7C=9", "-", "claim"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                  max_size=4),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(["format", "version", "rules", "num_players", "seed", "moves",
                            "position", "start_position", "summary", "extra"]),
       value=json_values, drop=st.booleans())
def test_fuzzed_saves_fail_cleanly(key: str, value: Any, drop: bool) -> None:
    """Whatever is put in a saved game, loading it succeeds or raises a CasinoError."""
    state = play(State(CLASSIC, 2, seed=3), 6)
    data = game_to_dict(state)
    if drop:
        data.pop(key, None)
    else:
        data[key] = value
    try:
        back = game_from_dict(data)
    except CasinoError as e:
        assert str(e)
    else:
        assert back.num_players == 2


def test_saves_are_ascii() -> None:
    """Positions and moves in saves never use suit symbols, whatever the UI shows."""
    state = play(State(CLASSIC, 2, seed=12), 8)
    data = game_to_dict(state)
    assert data["position"].isascii() and all(m.isascii() for m in data["moves"])


@pytest.mark.parametrize("preset", ["classic", "diamond_cassino", "five_player", "draw_cassino",
                                    "initial_pairs"])
def test_the_seeded_shuffle_never_changes(preset: str) -> None:
    """Saves replay from the seed: every round's deck is the cards sorted by (random key, card),
    one key per card of the deck in order, from the round's own generator."""
    rules = Rules.preset(preset)
    for seed in (0, 1, 7, "train"):
        state = State(rules, rules.player_counts[0], seed=seed)
        rnd = random.Random(f"casino-tui/{seed}/round-1").random
        expected = [c for _k, c in sorted([(rnd(), c) for c in rules.deck_cards])]
        dealt = expected[:len(expected) - len(state.stock)]
        assert state.stock[::-1] == expected[len(dealt):]
        placed = [c for h in state.hands for c in h] + [c for cap in state.captured for c in cap]
        for pile in state.table:
            placed.extend([pile] if isinstance(pile, int) else pile.cards)
        assert sorted(placed) == sorted(dealt)
