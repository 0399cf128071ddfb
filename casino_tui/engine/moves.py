"""Piles on the table and moves.

A pile is either a loose card (a plain ``int``) or a :class:`Build`. A :class:`Move` is small and
immutable (like ``chess.Move``); the piles it names are indices into the table of the position it
was generated for. :mod:`casino_tui.engine.notation` writes and reads moves by their cards.
"""

from __future__ import annotations

from typing import Literal, NamedTuple, TypeGuard

from .cards import RANKS, Card, card_str, cards_str
from .errors import IllegalMoveError

MoveKind = Literal["trail", "capture", "build", "pluck", "pass", "claim"]
MOVE_KINDS: tuple[str, ...] = ("trail", "capture", "build", "pluck", "pass", "claim")
_CARD_KINDS = frozenset({"trail", "capture", "build", "pluck"})
_PILE_KINDS = frozenset({"capture", "build"})


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
        return _value_str(self.value, self.court)

    def __str__(self) -> str:
        return f"[{cards_str(self.cards, '')}={self.value_str()}{'s' if self.single else 'm'}" \
               f"@{self.owner}]"


Pile = Card | Build


def pile_cards(pile: Pile) -> tuple[Card, ...]:
    return (pile,) if not isinstance(pile, Build) else pile.cards


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
        return _value_str(self.value, self.court)

    def same_action(self, other: Move) -> bool:
        """Equal ignoring the build kind (which follows from the rest)."""
        return (self.kind, self.card, self.piles, self.value, self.court) == (
            other.kind, other.card, other.piles, other.value, other.court)

    def __str__(self) -> str:
        c = card_str(self.card) if isinstance(self.card, int) and 0 <= self.card < 52 else ""
        if self.kind == "trail":
            return f"trail {c}"
        if self.kind == "capture":
            return f"{c} takes piles {','.join(map(str, self.piles))}"
        if self.kind == "build":
            return f"{c} builds {self.value_str()} on piles {','.join(map(str, self.piles))}"
        if self.kind == "pluck":
            return f"pluck {c}"
        return self.kind


def _value_str(value: int, court: bool) -> str:
    """A build value as announced: J, Q, K for court builds (11-13), else the number."""
    return RANKS[value - 1] if court and 11 <= value <= 13 else str(value)


def _is_int(x: object) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


def normalize_move(move: object) -> Move:
    """``move`` in canonical form (piles sorted into a tuple; the fields its kind does not use
    cleared), or IllegalMoveError saying what is malformed: an unknown kind, a missing or
    impossible card, piles that are not distinct table indexes, a value or court flag on a move
    that is not a build, a build value that no build can have (a court build is worth J, Q or K,
    any other build at least 1). ``single`` is ignored, as by :meth:`Move.same_action`: a
    build's kind follows from the rest. Whether the move is legal in a position is not checked.
    """
    if not isinstance(move, Move):
        raise IllegalMoveError(f"not a move: {move!r}")
    kind = move.kind
    if kind not in MOVE_KINDS:
        raise IllegalMoveError(f"unknown kind of move {kind!r}: choose one of "
                               + ", ".join(MOVE_KINDS))
    card = move.card
    if kind in _CARD_KINDS:
        if not _is_int(card) or card == -1:
            raise IllegalMoveError("no card was chosen" if card in (-1, None)
                                   else f"{card!r} is not a card")
        if not 0 <= card < 52:
            raise IllegalMoveError(f"{card!r} is not a card")
    elif card != -1 or not _is_int(card):
        raise IllegalMoveError(f"a {kind} names no card")
    piles = move.piles
    if not isinstance(piles, tuple | list) or not all(_is_int(p) for p in piles):
        raise IllegalMoveError("piles must be a list of table positions")
    if kind in _PILE_KINDS:
        if not piles:
            raise IllegalMoveError("choose at least one pile on the table")
        if len(set(piles)) != len(piles):
            raise IllegalMoveError("each pile can be chosen only once")
        if min(piles) < 0:
            raise IllegalMoveError(f"there is no pile {min(piles)} on the table")
    elif piles:
        raise IllegalMoveError(f"a {kind} takes no piles")
    court = move.court
    if not isinstance(court, bool):
        raise IllegalMoveError("the court-build flag must be true or false")
    value = move.value
    if kind != "build":
        if value is not None or court:
            raise IllegalMoveError(f"a {kind} has no build value")
        if isinstance(piles, tuple) and move.single is None and (
                len(piles) < 2 or list(piles) == sorted(piles)):
            return move
        return Move(kind, card, tuple(sorted(piles)))
    if not _is_int(value):
        raise IllegalMoveError("a build needs a value" if value is None
                               else f"a build's value is a number, not {value!r}")
    if court and not 11 <= value <= 13:
        raise IllegalMoveError(f"a court build is worth J, Q or K (11-13), not {value}")
    if value < 1:
        raise IllegalMoveError(f"a build is worth at least 1, not {value}")
    if isinstance(piles, tuple) and all(piles[i] < piles[i + 1] for i in range(len(piles) - 1)):
        return move
    return Move(kind, card, tuple(sorted(piles)), value, move.single, court)
