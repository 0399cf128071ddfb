"""The save file format (``docs/SAVE_FORMAT.md``): a file's bytes checked and parsed
(:func:`_parse_json`), its listing fields read without replaying (:func:`_info`), its game
replayed and checked (:func:`_replay`), and a game written as a file (:func:`_game_to_bytes`).

Nothing here touches the disk: a reason why bytes are not a readable save is an
:class:`~casino_tui.saves.errors._Unreadable`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from casino_tui import __version__
from casino_tui.engine import CasinoError, State
from casino_tui.engine.serialize import (
    FORMAT_NAME,
    FORMAT_VERSION,
    game_from_dict,
    game_summary,
    game_to_dict,
)
from casino_tui.saves.errors import _Newer, _Unreadable
from casino_tui.saves.names import _default_seats
from casino_tui.saves.records import SaveSlot, Seat, _check_text, _fmt_time, _parse_time

APP_NAME = "casino-tui"
APP_VERSION: str = __version__  # looked up once: each lookup reads the package metadata


# ------------------------------------------------------------------------------ reading
def _parse_json(raw: bytes) -> dict[str, Any]:
    try:
        # utf-8-sig: a byte-order mark (as some Windows editors write) is not part of the JSON
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _Unreadable("the file is not text (it is not a saved game, or it is "
                          "damaged)") from None
    if not text.strip():
        raise _Unreadable("the file is empty")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        if e.pos >= len(text.rstrip()) or e.msg.startswith("Unterminated string"):
            raise _Unreadable("the file is cut short (it ends in the middle of the game)") \
                from None
        raise _Unreadable(f"the file is not valid JSON ({e.msg}: line {e.lineno}, column "
                          f"{e.colno})") from None
    except (ValueError, RecursionError):
        raise _Unreadable("the file is not valid JSON") from None
    if not isinstance(data, dict):
        raise _Unreadable("the file is not a casino-tui saved game")
    fmt = data.get("format")
    if fmt != FORMAT_NAME:
        raise _Unreadable("the file is not a casino-tui saved game (format "
                          f"{_short(fmt)})")
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise _Unreadable(f"its format version is missing or damaged ({_short(version)})")
    if version > FORMAT_VERSION:
        raise _Newer(f"it was saved by a newer casino-tui (save format version {version}; "
                     f"this version reads up to version {FORMAT_VERSION}): update casino-tui "
                     "to open it")
    if version < 1:
        raise _Unreadable(f"unknown save format version {version}")
    return data


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _int(value: object, what: str, lo: int = 0, hi: int = 10**9) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise _Unreadable(f"its summary is damaged ({what} is {_short(value)})")
    return value


@dataclass
class _Info:
    """A file's listing fields (from its summary and extra, without replaying)."""

    name: str | None
    preset: str
    overrides: dict[str, Any]
    num_players: int
    seats: tuple[Seat, ...]
    sides: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    target: int
    round_no: int
    moves: int
    to_move: int | None
    finished: bool
    winner: int | None
    created: datetime | None
    updated: datetime | None
    start_position: str | None
    imported: Mapping[str, Any] | None = None
    table: Mapping[str, Any] | None = None
    undo: bool = False
    undo_last: tuple[int, int] | None = None


def _undo_last(value: object) -> tuple[int, int] | None:
    """``extra.undo_last``: the latest undo (the moves the game kept, the plays taken back);
    anything else is ignored (it only places a line in the log)."""
    if isinstance(value, Mapping):
        moves, taken = value.get("moves"), value.get("taken")
        if (type(moves) is int and type(taken) is int and 0 <= moves <= 10**6
                and 0 < taken <= 10**6):
            return moves, taken
    return None


def _table(value: object) -> Mapping[str, Any] | None:
    """``extra.table``: the game is played at a server's table (its id, join code, creator,
    ...; see SAVE_FORMAT.md); anything but an object is ignored (never needed to play)."""
    if isinstance(value, Mapping):
        return dict(value)
    return None


def _imported(value: object) -> Mapping[str, Any] | None:
    """``extra.imported``: the file a copy was imported from (its id, the SHA-256 of its
    bytes and its number of moves); anything else is ignored (it is never needed to play)."""
    if (isinstance(value, Mapping) and isinstance(value.get("id"), str)
            and isinstance(value.get("sha256"), str) and isinstance(value.get("moves"), int)):
        return {"id": value["id"], "sha256": value["sha256"], "moves": value["moves"]}
    return None


def _seats_of(extra: Mapping[str, Any], n: int) -> tuple[Seat, ...]:
    raw = extra.get("seats")
    if raw is None:
        return _default_seats(n)
    if not isinstance(raw, list) or len(raw) != n:
        raise _Unreadable(f"its list of players is damaged (expected {n} seats)")
    try:
        return tuple(Seat.from_dict(s) for s in raw)
    except ValueError as e:
        raise _Unreadable(f"its list of players is damaged ({e})") from None


def _info(data: Mapping[str, Any]) -> _Info:
    rules = data.get("rules")
    if not isinstance(rules, Mapping) or not isinstance(rules.get("preset"), str):
        raise _Unreadable("its rules are missing or damaged")
    overrides = rules.get("overrides") or {}
    if not isinstance(overrides, Mapping):
        raise _Unreadable("its rule options are damaged")
    n = _int(data.get("num_players"), "the number of players", 1, 64)
    moves = data.get("moves")
    if not isinstance(moves, list):
        raise _Unreadable("its list of moves is missing or damaged")
    summary = data.get("summary")
    if not isinstance(summary, Mapping):
        raise _Unreadable("its summary is missing or damaged")
    sides_raw = summary.get("sides")
    if not isinstance(sides_raw, list) or not sides_raw:
        raise _Unreadable("its summary is damaged (sides)")
    sides = tuple(tuple(_int(s, "a seat", 0, n - 1) for s in side)
                  if isinstance(side, list) else _bad_side() for side in sides_raw)
    scores_raw = summary.get("scores")
    if not isinstance(scores_raw, list) or len(scores_raw) != len(sides):
        raise _Unreadable("its summary is damaged (scores)")
    scores = tuple(_int(s, "a score", -10**6, 10**6) for s in scores_raw)
    finished = summary.get("finished")
    if not isinstance(finished, bool):
        raise _Unreadable("its summary is damaged (finished)")
    winner = summary.get("winner")
    if winner is not None:
        winner = _int(winner, "the winner", 0, len(sides) - 1)
    to_move = summary.get("to_move")
    if to_move is not None:
        to_move = _int(to_move, "the player to move", 0, n - 1)
    extra = data.get("extra", {})
    if not isinstance(extra, Mapping):
        raise _Unreadable("its player and name data is damaged")
    name = extra.get("name")
    if name is not None:
        try:
            name = _check_text(name, "its name", allow_empty=True) or None
        except ValueError as e:
            raise _Unreadable(f"its name is damaged ({e})") from None
    start = data.get("start_position")
    if start is not None and not isinstance(start, str):
        raise _Unreadable("its start position is damaged")
    return _Info(
        name=name, preset=rules["preset"], overrides=dict(overrides), num_players=n,
        seats=_seats_of(extra, n), sides=sides, scores=scores,
        target=_int(summary.get("target"), "the target", 0, 10**6),
        round_no=_int(summary.get("round"), "the round", 0, 10**6), moves=len(moves),
        to_move=to_move, finished=finished, winner=winner,
        created=_parse_time(extra.get("created")), updated=_parse_time(extra.get("updated")),
        start_position=start, imported=_imported(extra.get("imported")),
        table=_table(extra.get("table")), undo=extra.get("undo") is True,
        undo_last=_undo_last(extra.get("undo_last")))


def _bad_side() -> tuple[int, ...]:
    raise _Unreadable("its summary is damaged (a side)")


def _replay(data: Mapping[str, Any]) -> State:
    """The game replayed from its seed and checked against its position and summary.

    Without a ``position``, the moves of a game saved just after the next round was dealt end
    at the end of the previous round: the summary's round says that the next one began."""
    try:
        state = game_from_dict(data)
        summary = data.get("summary")
        if data.get("position") is None and isinstance(summary, Mapping):
            rounds = summary.get("round")
            if (isinstance(rounds, int) and state.is_round_over
                    and state.round_no < rounds):
                state.next_round()
    except CasinoError as e:
        raise _Unreadable(_reason(e)) from None
    except RecursionError:
        raise _Unreadable("the file is nested too deeply") from None
    except Exception as e:  # a bug in the engine must not crash the Load screen
        raise _Unreadable(f"casino-tui could not check this file (internal error: "
                          f"{type(e).__name__}: {_reason(e)})") from None
    if _canon(data.get("summary")) != _canon(game_summary(state)):
        raise _Unreadable("its summary does not match its moves (the file was edited or "
                          "damaged)")
    return state


def _canon(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def _reason(err: Exception) -> str:
    text = str(err).strip().rstrip(".")
    return text[:300] if text else type(err).__name__


# ------------------------------------------------------------------------------ writing
# What json.dumps escapes in a string (ensure_ascii=False): a string without any is written as
# it is, between quotes. A save writes about 150 strings and numbers (each move, each field),
# and json.dumps costs several times more for each than the text itself.
_ESCAPED = re.compile(r'[\x00-\x1f\\"]')


# The text of the lists and objects written last (a game's seats, sides, scores, options...),
# by their repr: a save writes about ten of them and most are the same from one save to the
# next. A repr is a cheap key that tells plain JSON values apart (1, True, 1.0 and "1" each
# have their own, in lists too), and the values of a save are plain: the engine's record, and
# ``extra`` as read back from JSON.
_CONTAINER_TEXT: dict[str, str] = {}
_CONTAINER_TEXT_MAX = 512


def _compact(value: object) -> str:
    """``json.dumps(value, ensure_ascii=False)``: plain strings, integers and constants
    written directly, and lists and objects remembered by their repr (the same text)."""
    kind = type(value)
    if type(value) is str:
        if not _ESCAPED.search(value):
            return f'"{value}"'
    elif type(value) is int:  # (not a bool, nor an int subclass with its own repr)
        return int.__repr__(value)
    elif value is None:
        return "null"
    elif value is True:
        return "true"
    elif value is False:
        return "false"
    elif kind is list or kind is dict:
        key = repr(value)
        text = _CONTAINER_TEXT.get(key)
        if text is None:
            text = json.dumps(value, ensure_ascii=False)
            if len(_CONTAINER_TEXT) >= _CONTAINER_TEXT_MAX:
                _CONTAINER_TEXT.clear()
            _CONTAINER_TEXT[key] = text
        return text
    return json.dumps(value, ensure_ascii=False)


def _move_lines(moves: list[Any]) -> str:
    """The moves of a file, one a line: ``"  " + _compact(move)`` each, joined by ",\\n".

    Moves are plain strings in notation, which JSON writes as they are: when none of them
    needs escaping (one search of them all), the lines are one join, not one call a move (the
    moves are most of a save, and this was most of the cost of writing one)."""
    try:
        plain = "".join(moves)
    except TypeError:  # not all strings (a record made by hand): each as JSON writes it
        plain = None
    if plain is not None and not _ESCAPED.search(plain):
        return '  "' + '",\n  "'.join(moves) + '"'
    return ",\n".join(f"  {_compact(m)}" for m in moves)


def _encode(data: Mapping[str, Any]) -> bytes:
    """The file's text: one top-level field per line, objects one field per line and the
    moves one per line (easy to read and to compare); any JSON reader reads it."""
    fields = []
    for key, value in data.items():
        if isinstance(value, Mapping) and value:
            inner = ",\n".join(f"  {_compact(k)}: {_compact(v)}" for k, v in value.items())
            text = "{\n" + inner + "\n }"
        elif key == "moves" and isinstance(value, list) and value:
            text = "[\n" + _move_lines(value) + "\n ]"
        else:
            text = _compact(value)
        fields.append(f" {_compact(key)}: {text}")
    return ("{\n" + ",\n".join(fields) + "\n}\n").encode("utf-8")


def _game_to_bytes(state: State, slot: SaveSlot, updated: datetime) -> bytes:
    """The file of ``state``, the game played in ``slot``, saved at ``updated`` (the slot's
    times must be usable): the engine's game record with the app's ``extra`` (name, seats,
    times, the file it was imported from). Raises CasinoError if the game cannot be
    recorded."""
    extra: dict[str, Any] = {
        "name": slot.name,
        "seats": [s.to_dict() for s in slot.seats],
        "created": _fmt_time(slot.created),
        "updated": _fmt_time(updated),
        "saved_by": f"{APP_NAME} {APP_VERSION}",
    }
    if slot.imported is not None:
        extra["imported"] = dict(slot.imported)
    if slot.table is not None:
        extra["table"] = dict(slot.table)
    if slot.undo:
        extra["undo"] = True
    if slot.undo_last is not None:
        extra["undo_last"] = {"moves": slot.undo_last[0], "taken": slot.undo_last[1]}
    return _encode(game_to_dict(state, extra, start_position=slot.start_position))
