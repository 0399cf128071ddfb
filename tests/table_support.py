"""Helpers of the table tests: a deterministic thinker and a scanner for cards in JSON."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from casino_tui.ai import choose_move
from casino_tui.engine import Card, Move, SeatView, State, parse_card

CARD_TOKEN = re.compile(r"(?<![0-9A-Za-z])(10|[2-9AJQK])([SHDC])(?![0-9A-Za-z])")


class SeededThinker:
    """The random-level computer, seeded by the table: the same game every time."""

    def __init__(self) -> None:
        self.calls = 0

    async def choose(self, view: SeatView, level: str, seed: int) -> Move:
        self.calls += 1
        return choose_move(view, "random", seed=seed)


class BrokenThinker:
    """A computer player that fails (raises, or answers with an illegal move)."""

    def __init__(self, illegal: bool = False) -> None:
        self.illegal = illegal

    async def choose(self, view: SeatView, level: str, seed: int) -> Move:
        if self.illegal:
            return Move.capture(view.hand[0], (0, 1, 2, 3, 4, 5, 6, 7))
        raise RuntimeError("the search crashed")


def strings(value: object) -> Iterator[str]:
    """Every string in a JSON value (keys too)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from strings(v)


def cards_in(value: object) -> set[Card]:
    """Every card named anywhere in a JSON value (``10D``, also inside longer text)."""
    out: set[Card] = set()
    for text in strings(value):
        for m in CARD_TOKEN.finditer(text):
            out.add(parse_card(m.group(0)))
    return out


# ---------------------------------------------------------------------- the leak check
Recipient = int | None  # a seat, or None: a spectator


def hidden_from(state: State, who: Recipient) -> set[Card]:
    """The cards ``who`` may not know now: the stock and every other seat's hand."""
    out = set(state.stock)
    for seat, hand in enumerate(state.hands):
        if seat != who:
            out.update(hand)
    return out


def wire(value: dict[str, object]) -> object:
    return json.loads(json.dumps(value))  # exactly what crosses the socket


class Recorder:
    """What each recipient was sent, with the cards hidden from it at that moment."""

    def __init__(self, state: State, recipients: tuple[Recipient, ...]) -> None:
        self.state = state
        self.recipients = recipients
        self.sent: list[tuple[Recipient, object, set[Card]]] = []

    def send(self, who: Recipient, message: dict[str, object]) -> None:
        self.sent.append((who, wire(message), hidden_from(self.state, who)))

    def check(self) -> None:
        seen_own: dict[Recipient, set[Card]] = {r: set() for r in self.recipients}
        for who, message, hidden in self.sent:
            named = cards_in(message)
            leaked = named & hidden
            assert not leaked, f"sent to {who}: hidden cards {leaked} in {message}"
            seen_own[who] |= named
        for who in self.recipients:  # the scanner does find cards (the check can fail)
            assert seen_own[who], f"nothing with a card was sent to {who}"


class FakeAutogroup:
    """/proc/self/autogroup: its value, and every value written."""

    def __init__(self, value: int) -> None:
        self.value = value
        self.written: list[int] = []

    def read_text(self) -> str:
        return f"/autogroup-1 nice {self.value}\n"

    def write_text(self, text: str) -> int:
        self.value = int(text)
        self.written.append(self.value)
        return len(text)
