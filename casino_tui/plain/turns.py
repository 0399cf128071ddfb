"""What a turn says and what typed text means, wherever the game is held (in this process, or at
a server's table): the hand and table as sentences, the numbered moves, a typed move resolved
against the legal moves, and the table's events told as sentences."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, cast

from casino_tui.engine import Card, Move, NotationError, Pile, State
from casino_tui.engine.notation import format_move, parse_move_text
from casino_tui.table import TableEvent

from .commands import CommandError, as_move, match_moves, parse_request
from .words import Speaker, plural

_ORDER = {"capture": 0, "build": 1, "trail": 2}


def numbered_moves(legal: Sequence[Move]) -> list[Move]:
    """The legal moves, numbered from 1 in this order: captures, builds, then trails and the
    rest, each by the card played."""
    return sorted(legal, key=lambda m: (_ORDER.get(m.kind, 3), m.card >> 2, m.card & 3,
                                        m.piles, m.value or 0))


def hand_sentence(hand: Sequence[Card], speaker: Speaker) -> str:
    if not hand:
        return "Your hand is empty."
    return f"You hold {speaker.cards(sorted(hand, key=lambda c: (c >> 2, c & 3)))}."


def moves_lines(moves: Sequence[Move], table: Sequence[Pile], names: Sequence[str],
                speaker: Speaker, *, sweeps: bool) -> list[str]:
    if not moves:
        return ["You have no move now."]
    return [f"{plural(len(moves), 'move')}:"] + [
        f"{i}. {speaker.move(table, m, names, sweeps=sweeps)}" for i, m in enumerate(moves, 1)]


@dataclass
class Resolved:
    """What typed text asks for: a ``move`` to play, or ``said`` lines (a question with the
    numbered choices, or why nothing matches); ``exact``: the one move the text names, not
    legal, for the table to refuse with its reason."""

    move: Move | None = None
    said: list[str] = field(default_factory=list)
    exact: Move | None = None
    understood: bool = True  # the text began with a move's verb or a number


def resolve(text: str, moves: Sequence[Move], table: Sequence[Pile], hand: Sequence[Card],
            names: Sequence[str], speaker: Speaker, *, sweeps: bool) -> Resolved:
    """The move ``text`` (a number of ``moves``, or a move in words) names among ``moves``,
    which are numbered as :func:`numbered_moves` numbers them."""
    words = text.lower().split()
    if words and (words[0].isdigit() or (words[0] in ("move", "number") and len(words) == 2
                                         and words[1].isdigit())):
        n = int(words[-1])
        if 1 <= n <= len(moves):
            return Resolved(move=moves[n - 1])
        return Resolved(said=[f"There is no move {n}: you have "
                              f"{plural(len(moves), 'move')}. Type moves to hear them."])
    try:
        request = parse_request(text)
    except CommandError as err:
        return Resolved(said=[str(err)])
    if request is None:
        return Resolved(understood=False)
    found = match_moves(request, moves, table)
    if len(found) == 1:
        return Resolved(move=found[0])
    if found:
        return Resolved(said=[f"That could be {plural(len(found), 'move')}; type its number:"]
                        + [f"{moves.index(m) + 1}. "
                           f"{speaker.move(table, m, names, sweeps=sweeps)}" for m in found])
    if request.played is not None and not any(request.played.matches_card(c) for c in hand):
        return Resolved(said=["You do not hold that card. " + hand_sentence(hand, speaker)])
    exact = as_move(request, hand, table)
    return Resolved(said=["No legal move matches that. Type moves to hear your moves."],
                    exact=exact)


class _Position(NamedTuple):
    """All that the engine's notation reads of a position: its table."""

    table: Sequence[Pile]


def notation_move(text: str, table: Sequence[Pile], moves: Sequence[Move]) -> Move | str:
    """The move ``text`` names in the engine's notation (``7H``, ``9Cx5D+4S``, ``2H>7C=9``;
    a build's value may be left out, ``7H>7C``, when only one is legal): the legal one of
    ``moves`` when there is one (else the move as written, for the table to refuse with its
    reason), or why the text cannot be read."""
    position = cast(State, _Position(table))
    try:
        move, _kind = parse_move_text(position, text)
    except NotationError as err:
        written = text.strip().upper()
        if ">" in written and "=" not in written:
            found = [m for m in moves if m.kind == "build"
                     and format_move(position, m).upper().startswith(written + "=")]
            if len(found) == 1:
                return found[0]
        return f"I do not understand {text.strip()!r}: {err}. Type help for the commands."
    same = [m for m in moves if m.same_action(move)]
    return same[0] if same else move


def event_line(event: TableEvent, names: Sequence[str], side_names: Sequence[str],
               me: int | None, speaker: Speaker, *, sweeps: bool) -> str | None:
    """A table's event as a sentence (None: nothing to say; round and game ends are told from
    their summaries)."""
    data = dict(event.data)
    if event.kind == "round_start":
        dealer = data.get("dealer")
        line = f"Round {event.round_no}."
        if isinstance(dealer, int) and 0 <= dealer < len(names):
            line += f" {names[dealer]} deals."
        grant = data.get("grant")
        if isinstance(grant, list) and len(grant) == 2 and isinstance(grant[0], int):
            line += f" {names[grant[0]]} took the paired table cards."
        return line
    if event.kind == "move" and event.move is not None:
        return speaker.event(event.table_before, event.move, names, side_names, me,
                             sweeps=sweeps)
    if event.kind == "deal":
        text = "New deal" + (", the last one" if data.get("last") else "")
        if data.get("changed"):
            text += f", {data['deal_no']} of {data['deals']}"
        return text + "."
    if event.kind == "note":
        return speaker.text(event.text) + ("" if event.text.endswith(".") else ".")
    if event.kind == "chat":
        return f"{data.get('who', 'Someone')} says: {event.text}"
    if event.kind == "seat":
        name = str(data.get("name", "someone"))
        change = data.get("change")
        # at a server's table a seat is named after its person: say its number
        seat = f"seat {event.seat + 1}" if event.seat is not None else "a seat"
        return {
            "joined": f"{name} joined, in {seat}.",
            "left": f"{name} left {seat}.",
            "away": f"{name} is away.",
            "back": f"{name} is back.",
            "computer": f"A computer plays {seat} while {name} is away.",
            "filled": f"A computer ({data.get('level', 'medium')}) plays {seat}.",
            "returned": f"{name} plays {seat} again.",
        }.get(str(change), f"{seat}: {change}.")
    return None
