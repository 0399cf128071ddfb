"""Saving and loading games as JSON-able dicts, by replaying the moves from the seed.

A saved game holds the rules, the player count, the seed and the move history in notation; the
game is rebuilt by dealing from the seed and replaying every move, so a save can never describe
an impossible game. The position after the last move is stored too and checked against the
replay, which catches saves edited by hand and engine changes that would alter old games::

    data = game_to_dict(state, extra={"names": ["Ann", "Bob"]})
    json.dump(data, f)
    ...
    state = game_from_dict(json.load(f))
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import CasinoError, IllegalMoveError, NotationError, StateError
from .moves import Move
from .notation import (
    describe_initial_grant,
    describe_move,
    format_move,
    format_position,
    parse_move,
    parse_position,
)
from .rules import Rules
from .state import State

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "ReplayError",
    "SaveFormatError",
    "describe_history",
    "game_from_dict",
    "game_from_json",
    "game_summary",
    "game_to_dict",
    "game_to_json",
    "history_notation",
    "replay",
]

FORMAT_NAME = "casino-tui-game"
FORMAT_VERSION = 1


class SaveFormatError(NotationError):
    """A saved game that is malformed, of another format, or from a newer version."""


class ReplayError(StateError):
    """Replaying a saved game's moves fails or does not reach the saved position."""


# ------------------------------------------------------------------------------ replay
def _fresh(rules: Rules, num_players: int, seed: int | str,
           start_position: str | None) -> State:
    if start_position is None:
        return State(rules, num_players, seed)
    st = parse_position(start_position, rules)
    if st.num_players != num_players:
        raise ReplayError(f"the start position has {st.num_players} players, not {num_players}")
    return st


def _replay(start: State, moves: Sequence[str], rounds: int | None = None) -> State:
    st = start
    for i, text in enumerate(moves, 1):
        if not isinstance(text, str):
            raise SaveFormatError(f"move {i} is not text: {text!r}")
        if st.is_round_over:
            st.next_round()
        if st.is_game_over:
            raise ReplayError(f"move {i} ({text}) comes after the end of the game")
        try:
            move = parse_move(st, text)
        except (NotationError, IllegalMoveError) as e:
            raise ReplayError(f"move {i} ({text}) cannot be replayed in round {st.round_no}: "
                              f"{e}") from None
        st.apply(move, validate=False)
    _advance(st, rounds)
    return st


def _advance(st: State, rounds: int | None) -> None:
    """Start new rounds until round ``rounds`` (a game saved just after next_round())."""
    if rounds is not None:
        while st.is_round_over and st.round_no < rounds:
            st.next_round()


def replay(rules: Rules, num_players: int, seed: int | str, moves: Sequence[str], *,
           rounds: int | None = None, start_position: str | None = None) -> State:
    """Deal from ``seed`` and play ``moves`` (notation strings) in order.

    A finished round is followed by :meth:`State.next_round` when more moves remain, and also
    until round ``rounds`` is reached when that is given. ``start_position`` replaces the deal
    from the seed (games started from a set-up position). Raises :class:`ReplayError` naming
    the first move that cannot be played.
    """
    return _replay(_fresh(rules, num_players, seed, start_position), moves, rounds)


# The replays of the games saved last, each continued by the next save of its game: a game is
# saved after every move, and replaying its whole history from the seed each time cost a save
# more the longer the game (0.3 ms after 10 moves, 1.7 ms after 96). Each move is still checked
# once, by playing it from the seed's deal in order; a save goes on from where the replay of the
# previous one stopped when the game's history begins with the moves that replay played (an
# undone move, another game with the same seed and rules: a replay from the seed).
# (rules, players, seed, start position) -> (moves replayed, their notation, the position)
_REPLAYS: dict[tuple[Rules, int, int | str, str | None], tuple[list[Move], list[str], State]] = {}
_REPLAYS_KEPT = 64  # games (the server's hub saves every table it holds)


def _notate(state: State, start_position: str | None) -> tuple[list[str], State]:
    """The history in notation, each move checked by playing it from the seed (or from
    ``start_position``), and the position reached (the caller only reads it)."""
    key = (state.rules, state.num_players, state.seed, start_position)
    history = state.history
    kept = _REPLAYS.pop(key, None)  # taken: a replay is continued by one save at a time
    if (kept is not None and len(kept[0]) <= len(history) and kept[2].round_no <= state.round_no
            and history[:len(kept[0])] == kept[0]):
        done, out, st = kept
    else:
        done, out = [], []
        st = _fresh(state.rules, state.num_players, state.seed, start_position)
    for i, move in enumerate(history[len(done):], len(done) + 1):
        if st.is_round_over:
            st.next_round()
        try:
            text = format_move(st, move)
            st.apply(move)
        except (NotationError, IllegalMoveError, StateError) as e:
            raise ReplayError(f"move {i} of the game's history ({move}) does not replay from "
                              f"its seed: {e}") from None
        out.append(text)
    _advance(st, state.round_no)
    while len(_REPLAYS) >= _REPLAYS_KEPT:  # forget the game saved least recently
        with contextlib.suppress(StopIteration, RuntimeError):  # (another thread's save)
            _REPLAYS.pop(next(iter(_REPLAYS)), None)
    _REPLAYS[key] = (list(history), out, st)
    return list(out), st


def history_notation(state: State, *, start_position: str | None = None) -> list[str]:
    """``state.history`` in notation, each move written against the position before it
    (obtained by replaying from the seed, or from ``start_position``)."""
    return _notate(state, start_position)[0]


# --------------------------------------------------------------------------- save / load
def game_summary(state: State) -> dict[str, Any]:
    """Scores, round, whose turn and the result: what a "load game" list shows."""
    return {
        "scores": list(state.scores),
        "target": state.target,
        "sides": [list(s) for s in state.sides],
        "round": state.round_no,
        "deal": state.deal_no,
        "to_move": state.current_player,
        "phase": state.phase.value,
        "finished": state.is_game_over,
        "winner": state.winner,
    }


def game_to_dict(state: State, extra: Mapping[str, Any] | None = None, *,
                 start_position: str | None = None) -> dict[str, Any]:
    """A JSON-able record of the game: rules, seed, moves in notation, the position reached and
    a summary. ``extra`` (JSON-able) is stored as is, for the UI (player names, ...).

    Raises :class:`ReplayError` if the state's history does not lead from its seed (or from
    ``start_position``) to the state, and :class:`SaveFormatError` if ``extra`` is not
    JSON-able.
    """
    moves, replayed = _notate(state, start_position)
    position = format_position(state)
    got = format_position(replayed)
    if got != position:
        raise ReplayError("this game cannot be saved as a replay: its moves do not lead from "
                          "its seed to the current position (" + _diff(position, got) + ")")
    data: dict[str, Any] = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "rules": state.rules.to_dict(),
        "num_players": state.num_players,
        "seed": state.seed,
        "moves": moves,
        "position": position,
        "summary": game_summary(state),
    }
    if start_position is not None:
        data["start_position"] = start_position
    if extra is not None:
        if not isinstance(extra, Mapping):
            raise SaveFormatError("extra must be a dict")
        try:
            data["extra"] = json.loads(json.dumps(dict(extra)))
        except (TypeError, ValueError) as e:
            raise SaveFormatError(f"extra data is not JSON-able: {e}") from None
    return data


def _diff(expected: str, got: str) -> str:
    a = dict(f.split("=", 1) for f in expected.split(" ") if "=" in f)
    b = dict(f.split("=", 1) for f in got.split(" ") if "=" in f)
    keys = [k for k in dict.fromkeys([*a, *b]) if a.get(k) != b.get(k)]
    return "fields that differ: " + ", ".join(keys) if keys else "the positions differ"


def _need(data: Mapping[str, Any], key: str, types: type | tuple[type, ...], what: str) -> Any:
    if key not in data:
        raise SaveFormatError(f"saved game has no {key!r} ({what})")
    v = data[key]
    if isinstance(v, bool) or not isinstance(v, types):
        raise SaveFormatError(f"saved game field {key!r} should be {what}, not {v!r}"[:200])
    return v


def game_from_dict(data: Any) -> State:
    """Rebuild a game saved by :func:`game_to_dict` by replaying its moves from the seed.

    Raises :class:`SaveFormatError` for malformed data, another format or a newer version, and
    :class:`ReplayError` if the moves cannot be replayed or do not reach the saved position.
    """
    if not isinstance(data, Mapping):
        raise SaveFormatError(f"a saved game must be a JSON object, not {type(data).__name__}")
    fmt = data.get("format")
    if fmt != FORMAT_NAME:
        raise SaveFormatError(f"not a casino-tui saved game (format {fmt!r}, expected "
                              f"{FORMAT_NAME!r})")
    version = _need(data, "version", int, "a whole number")
    if version > FORMAT_VERSION:
        raise SaveFormatError(f"this game was saved by a newer casino-tui (save format version "
                              f"{version}); this version reads up to version {FORMAT_VERSION}")
    if version < 1:
        raise SaveFormatError(f"unknown save format version {version}")
    rules_data = _need(data, "rules", Mapping, "an object with the preset and overrides")
    try:
        rules = Rules.from_dict(dict(rules_data))
    except (CasinoError, TypeError, ValueError, KeyError, AttributeError) as e:
        raise SaveFormatError(f"the saved game's rules are not valid: {e}") from None
    n = _need(data, "num_players", int, "a whole number")
    if n not in rules.player_counts:
        raise SaveFormatError(f"{rules.preset_name} cannot be played by {n} players")
    seed = _need(data, "seed", (int, str), "a number or text")
    moves = _need(data, "moves", list, "a list of moves in notation")
    bad = [m for m in moves if not isinstance(m, str)]
    if bad:
        raise SaveFormatError(f"saved moves must be text; found {bad[0]!r}")
    start = data.get("start_position")
    if start is not None and not isinstance(start, str):
        raise SaveFormatError("start_position must be a position string")
    position = data.get("position")
    saved: State | None = None
    if position is not None:
        if not isinstance(position, str):
            raise SaveFormatError("the saved position must be a position string")
        try:
            saved = parse_position(position, rules)
        except NotationError as e:
            raise SaveFormatError(f"the saved position cannot be read: {e}") from None
        if saved.num_players != n or saved.seed != seed:
            raise ReplayError("the saved position does not belong to this game (players or "
                              "seed differ)")
    try:
        start_state = _fresh(rules, n, seed, start)
    except NotationError as e:
        raise SaveFormatError(f"the start position cannot be read: {e}") from None
    st = _replay(start_state, moves, saved.round_no if saved is not None else None)
    if saved is not None:
        want = format_position(saved)
        got = format_position(st)
        if want != got:
            raise ReplayError("the replayed game does not reach the saved position ("
                              + _diff(want, got) + "); the save was edited or comes from an "
                              "incompatible engine")
    return st


def game_to_json(state: State, extra: Mapping[str, Any] | None = None, **kw: Any) -> str:
    """:func:`game_to_dict` as a JSON string."""
    return json.dumps(game_to_dict(state, extra, **kw), ensure_ascii=False, indent=1)


def game_from_json(text: str) -> State:
    """:func:`game_from_dict` from a JSON string."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as e:
        raise SaveFormatError(f"a saved game must be JSON: {e}") from None
    return game_from_dict(data)


def describe_history(state: State, names: Sequence[str], *,
                     start_position: str | None = None) -> list[str]:
    """The game's move log in words (one line per move, rounds and grants marked), rebuilt
    by replaying ``state.history`` from the seed: what a loaded game's log panel shows."""
    lines: list[str] = []
    st = _fresh(state.rules, state.num_players, state.seed, start_position)
    rnd = 0
    for move in state.history:
        if st.is_round_over:
            st.next_round()
        if st.round_no != rnd:
            rnd = st.round_no
            lines.append(f"Round {rnd}")
            grant = describe_initial_grant(st, names)
            if grant:
                lines.append(grant)
        before = st.clone()
        ev = st.apply(move)
        lines.append(describe_move(before, move, ev, names))
    return lines
