"""Cards, suits, ranks and decks.

A card is a plain ``int`` (like a square in python-chess): ``rank * 4 + suit`` where rank 0..12
is A, 2, ..., 10, J, Q, K and suit 0..3 is spades, hearts, diamonds, clubs. Ints keep the move
generator fast; the helpers here turn them into notation (``10D``, ``AS``, ``10♦``) and back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .errors import NotationError

Card = int

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
SUIT_SYMBOLS: tuple[str, ...] = ("♠", "♥", "♦", "♣")
SUIT_NAMES: tuple[str, ...] = ("spades", "hearts", "diamonds", "clubs")
RANK_NAMES: tuple[str, ...] = (
    "ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "jack", "queen", "king",
)

SPADES, HEARTS, DIAMONDS, CLUBS = range(4)
ACE, JACK, QUEEN, KING = 0, 10, 11, 12
COURT_RANKS = frozenset({JACK, QUEEN, KING})

_SUIT_INDEX = {s: i for i, s in enumerate(SUITS)}
_SUIT_INDEX.update({sym: i for i, sym in enumerate(SUIT_SYMBOLS)})
_SUIT_INDEX.update({"♤": 0, "♡": 1, "♢": 2, "♧": 3})
_RANK_INDEX = {r: i for i, r in enumerate(RANKS)}
_RANK_INDEX["T"] = 9
_RANK_INDEX["1"] = 0

CARD_RE = re.compile(r"(10|[AaTtJjQqKk2-9])([SHDCshdc♠♥♦♣♤♡♢♧])")


def make_card(rank: int, suit: int) -> Card:
    return rank * 4 + suit


def rank_of(card: Card) -> int:
    """Rank index 0..12 (A..K)."""
    return card >> 2


def suit_of(card: Card) -> int:
    """Suit index 0..3 (S, H, D, C)."""
    return card & 3


def is_court(card: Card) -> bool:
    return (card >> 2) >= JACK


def card_str(card: Card, symbols: bool = False) -> str:
    """``10D`` (or ``10♦`` with symbols)."""
    suit = SUIT_SYMBOLS[card & 3] if symbols else SUITS[card & 3]
    return RANKS[card >> 2] + suit


def card_name(card: Card) -> str:
    """``ten of diamonds``."""
    return f"{RANK_NAMES[card >> 2]} of {SUIT_NAMES[card & 3]}"


def parse_card(text: str) -> Card:
    """Parse ``10D``, ``AS``, ``TD``, ``10♦``; raises :class:`NotationError` on bad input."""
    s = text.strip()
    m = CARD_RE.fullmatch(s)
    if not m:
        raise NotationError(f"not a card: {text!r} (expected rank A,2-10,J,Q,K and suit S,H,D,C)")
    return make_card(_RANK_INDEX[m.group(1).upper()], _SUIT_INDEX[m.group(2).upper()
                                                                  if m.group(2).isascii()
                                                                  else m.group(2)])


def parse_cards(text: str) -> list[Card]:
    """Parse a run of cards, separated or not: ``5H4C``, ``5H 4C``, ``5H,4C``."""
    s = re.sub(r"[\s,+]", "", text)
    out: list[Card] = []
    pos = 0
    while pos < len(s):
        m = CARD_RE.match(s, pos)
        if not m:
            raise NotationError(f"bad card list {text!r} at {s[pos:]!r}")
        out.append(parse_card(m.group(0)))
        pos = m.end()
    return out


def cards_str(cards: Iterable[Card], sep: str = " ", symbols: bool = False) -> str:
    return sep.join(card_str(c, symbols) for c in cards)


ALL_CARDS: tuple[Card, ...] = tuple(range(52))

BIG_CASINO = make_card(9, DIAMONDS)  # 10D
LITTLE_CASINO_SPADES = make_card(1, SPADES)  # 2S
LITTLE_CASINO_CLUBS = make_card(1, CLUBS)  # 2C


def deck_cards(deck: str) -> tuple[Card, ...]:
    """The cards of a ``deck`` option value (RULES.md 1.1), in a fixed order."""
    if deck == "52":
        return ALL_CARDS
    if deck == "49_five_player":
        removed = {make_card(1, HEARTS), make_card(1, DIAMONDS), make_card(1, CLUBS)}
        return tuple(c for c in ALL_CARDS if c not in removed)
    if deck == "40_no_courts":
        return tuple(c for c in ALL_CARDS if rank_of(c) < JACK)
    raise ValueError(f"unknown deck {deck!r}")
