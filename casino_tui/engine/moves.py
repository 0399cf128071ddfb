"""Piles on the table and moves.

A pile is either a loose card (a plain ``int``) or a :class:`Build`. A :class:`Move` is small and
immutable (like ``chess.Move``); the piles it names are indices into the table of the position it
was generated for. :mod:`casino_tui.engine.notation` writes and reads moves by their cards.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from .cards import RANKS, Card, card_str, cards_str

MoveKind = Literal["trail", "capture", "build", "pluck", "pass", "claim"]


class Build(NamedTuple):
    """A build on the table: its cards, announced value, kind and owner (a seat).

    ``court`` builds (variants with court builds) have the court rank's number as ``value``
    (11 J, 12 Q, 13 K) and can be taken only by a card of that rank. Immutable (a NamedTuple:
    cheap to create, which matters in search).
    """

    cards: tuple[Card, ...]
    value: int
    single: bool
    owner: int
    court: bool = False

    @property
    def kind(self) -> str:
        return "single" if self.single else "multiple"

    def value_str(self) -> str:
        return RANKS[self.value - 1] if self.court else str(self.value)

    def __str__(self) -> str:
        return f"[{cards_str(self.cards, '')}={self.value_str()}{'s' if self.single else 'm'}" \
               f"@{self.owner}]"


Pile = Card | Build


def pile_cards(pile: Pile) -> tuple[Card, ...]:
    return (pile,) if not isinstance(pile, Build) else pile.cards  # type: ignore[union-attr]


class Move(NamedTuple):
    """One action of the player to move (immutable and hashable, like ``chess.Move``).

    ``kind``: ``trail`` (play ``card`` to the table), ``capture`` (take ``piles`` with ``card``),
    ``build`` (put ``card`` on ``piles`` announcing ``value``), and three actions that only some
    presets have: ``pluck`` (take loose ``card`` from the table, Pluck Cassino), ``pass`` (decline
    the pluck after playing) and ``claim`` (call the game out, Call-out 21).
    ``piles`` are sorted indices into the table of the position the move belongs to; ``single``
    is the resulting build's kind; ``court`` marks a natural build of court cards (value 11-13
    then means J, Q, K).
    """

    kind: MoveKind
    card: Card = -1
    piles: tuple[int, ...] = ()
    value: int | None = None
    single: bool | None = None
    court: bool = False

    @staticmethod
    def trail(card: Card) -> Move:
        return Move("trail", card)

    @staticmethod
    def capture(card: Card, piles: tuple[int, ...] | list[int]) -> Move:
        return Move("capture", card, tuple(sorted(piles)))

    @staticmethod
    def build(card: Card, piles: tuple[int, ...] | list[int], value: int, single: bool,
              court: bool = False) -> Move:
        return Move("build", card, tuple(sorted(piles)), value, single, court)

    @staticmethod
    def pluck(card: Card) -> Move:
        return Move("pluck", card)

    @staticmethod
    def pass_() -> Move:
        return Move("pass")

    @staticmethod
    def claim() -> Move:
        return Move("claim")

    @property
    def build_kind(self) -> str | None:
        if self.kind != "build":
            return None
        return "single" if self.single else "multiple"

    def value_str(self) -> str:
        if self.value is None:
            return ""
        return RANKS[self.value - 1] if self.court else str(self.value)

    def same_action(self, other: Move) -> bool:
        """Equal ignoring the build kind (which follows from the rest)."""
        return (self.kind, self.card, self.piles, self.value, self.court) == (
            other.kind, other.card, other.piles, other.value, other.court)

    def __str__(self) -> str:
        c = card_str(self.card) if self.card >= 0 else ""
        if self.kind == "trail":
            return f"trail {c}"
        if self.kind == "capture":
            return f"{c} takes piles {','.join(map(str, self.piles))}"
        if self.kind == "build":
            return f"{c} builds {self.value_str()} on piles {','.join(map(str, self.piles))}"
        if self.kind == "pluck":
            return f"pluck {c}"
        return self.kind
