"""Moves typed in words: ``take 7 with 7``, ``take 3 and 5 with 8``, ``build 9 with 4 on 5``,
``raise 7 to 9 with 2``, ``add 9 to 9``, ``trail 3``, ``play 7h``, ``pluck 7``, ``pass``,
``claim``, or a number from the list of moves.

A typed move is matched against the legal moves of the position (:func:`match_moves`): the card
played, the piles named (a card by rank, ``7``, ``seven``, or rank and suit, ``7h``, ``seven of
hearts``; a build by its value or ``build``; any pile by its number, ``pile 2``) and a build's
value. Naming only some of the piles is enough when that leaves one move. Nothing here changes
the game.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from casino_tui.engine import Build, Card, Move, Pile

RANK_WORDS: dict[str, int] = {
    "a": 0, "ace": 0, "aces": 0, "1": 0, "one": 0,
    "2": 1, "two": 1, "twos": 1, "deuce": 1, "3": 2, "three": 2, "threes": 2,
    "4": 3, "four": 3, "fours": 3, "5": 4, "five": 4, "fives": 4, "6": 5, "six": 5, "sixes": 5,
    "7": 6, "seven": 6, "sevens": 6, "8": 7, "eight": 7, "eights": 7,
    "9": 8, "nine": 8, "nines": 8, "10": 9, "ten": 9, "tens": 9, "t": 9,
    "j": 10, "jack": 10, "jacks": 10, "11": 10, "eleven": 10,
    "q": 11, "queen": 11, "queens": 11, "12": 11, "twelve": 11,
    "k": 12, "king": 12, "kings": 12, "13": 12, "thirteen": 12,
    "14": 13, "fourteen": 13,  # a build's value only (an ace high in some presets)
}
SUIT_WORDS: dict[str, int] = {
    "s": 0, "spade": 0, "spades": 0, "♠": 0, "h": 1, "heart": 1, "hearts": 1, "♥": 1,
    "d": 2, "diamond": 2, "diamonds": 2, "♦": 2, "c": 3, "club": 3, "clubs": 3, "♣": 3,
}
VERBS: dict[str, str] = {
    "take": "capture", "capture": "capture", "catch": "capture",
    "build": "build", "raise": "raise", "add": "add",
    "trail": "trail", "drop": "trail", "lay": "trail",
    "play": "play", "pluck": "pluck", "pass": "pass", "claim": "claim",
}
KEYWORDS = ("with", "on", "to", "onto", "using")
FILLER = {"the", "a", "an", "and", "of", "my", "card", "cards", "it", "up", "loose", "'s",
          "your", "their", "&", "plus", "+"}
_COMPACT = re.compile(r"^(10|[a2-9tjqk1])([shdc♠♥♦♣])$")


class CommandError(ValueError):
    """Typed text that does not name a move: the message says why, in a sentence."""


@dataclass(frozen=True)
class CardSpec:
    """A card or pile as typed: a rank (0 ace .. 12 king), a suit, a pile number, or any build."""

    rank: int | None = None
    suit: int | None = None
    pile: int | None = None  # 0-based
    any_build: bool = False

    def matches_card(self, card: Card) -> bool:
        if self.pile is not None or self.any_build:
            return False
        return (self.rank is None or card >> 2 == self.rank) and \
            (self.suit is None or card & 3 == self.suit)

    def matches_pile(self, pile: Pile, index: int) -> bool:
        if self.pile is not None:
            return self.pile == index
        if isinstance(pile, Build):
            return self.any_build or (self.suit is None and self.rank is not None
                                      and pile.value == self.rank + 1)
        return not self.any_build and self.matches_card(pile)


@dataclass
class Request:
    """A move as typed: its verb, the card played, the piles named and a build's value."""

    verb: str
    played: CardSpec | None = None
    targets: list[CardSpec] = field(default_factory=list)
    value: int | None = None


def _words(text: str) -> list[str]:
    text = text.lower().replace(",", " ").replace("'s", " ")
    text = re.sub(r"([♠♥♦♣])", r" \1 ", text)
    text = re.sub(r"(?<=\d)([♠♥♦♣])", r" \1", text)
    return [w for w in text.split() if w]


def parse_specs(words: Sequence[str]) -> list[CardSpec]:
    """Cards and piles in typed words: ``7``, ``7h``, ``seven of hearts``, ``build``,
    ``pile 2``; raises :class:`CommandError` for a word that is none of these."""
    out: list[CardSpec] = []
    i = 0
    words = [w for w in words if w not in FILLER]
    while i < len(words):
        w = words[i]
        if w in ("pile", "p", "#", "number") and i + 1 < len(words) and words[i + 1].isdigit():
            out.append(CardSpec(pile=int(words[i + 1]) - 1))
            i += 2
            continue
        if re.fullmatch(r"(p|#)\d+", w):
            out.append(CardSpec(pile=int(w[1:]) - 1))
            i += 1
            continue
        if w in ("build", "builds"):
            out.append(CardSpec(any_build=True))
            i += 1
            continue
        m = _COMPACT.match(w)
        if m and w not in RANK_WORDS:
            rank = RANK_WORDS["10" if m.group(1) == "t" else m.group(1)]
            out.append(CardSpec(rank=rank, suit=SUIT_WORDS[m.group(2)]))
            i += 1
            continue
        if w in RANK_WORDS and RANK_WORDS[w] <= 12:
            rank = RANK_WORDS[w]
            if i + 1 < len(words) and words[i + 1] in SUIT_WORDS and len(words[i + 1]) > 1:
                out.append(CardSpec(rank=rank, suit=SUIT_WORDS[words[i + 1]]))
                i += 2
            else:
                out.append(CardSpec(rank=rank))
                i += 1
            continue
        raise CommandError(f"I do not know the card {w!r}: say a card like 7, seven, 7h or "
                           "seven of hearts, a build, or a pile by its number, like pile 2.")
    return out


def _value(words: Sequence[str]) -> int:
    words = [w for w in words if w not in FILLER]
    if len(words) != 1 or words[0] not in RANK_WORDS:
        raise CommandError("Say a build's value as one number, like build 9 with 4 on 5.")
    return RANK_WORDS[words[0]] + 1


def _segments(words: Sequence[str]) -> dict[str, list[str]]:
    segs: dict[str, list[str]] = {"": []}
    key = ""
    for w in words:
        if w in KEYWORDS:
            key = {"onto": "on", "using": "with"}.get(w, w)
            if key in segs:
                raise CommandError(f"{w!r} is said twice: say a move like take 7 with 7.")
            segs[key] = []
        else:
            segs[key].append(w)
    return segs


def _one(specs: list[CardSpec], what: str) -> CardSpec | None:
    if not specs:
        return None
    if len(specs) > 1:
        raise CommandError(f"Name one card to {what}.")
    return specs[0]


def parse_request(text: str) -> Request | None:
    """The move ``text`` asks for, or None when it does not begin with a move's verb."""
    words = _words(text)
    if not words or words[0] not in VERBS:
        return None
    verb = VERBS[words[0]]
    segs = _segments(words[1:])
    head = segs.pop("")
    if verb in ("pass", "claim"):
        if head or segs:
            raise CommandError(f"Say just {verb}.")
        return Request(verb)
    if verb in ("trail", "pluck", "play"):
        if segs:
            raise CommandError(f"Say {verb} and a card, like {verb} 7h.")
        played = _one(parse_specs(head), verb)
        if played is None:
            raise CommandError(f"Which card? Say {verb} and a card, like {verb} 7h.")
        return Request(verb, played=played)
    if verb == "capture":
        if set(segs) - {"with"}:
            raise CommandError("Say a capture like take 7 with 7, or take 3 and 5 with 8.")
        return Request("capture", played=_one(parse_specs(segs.get("with", [])), "take with"),
                       targets=parse_specs(head))
    if verb == "build":  # build 9 with 4 on 5
        if set(segs) - {"with", "on"}:
            raise CommandError("Say a build like build 9 with 4 on 5.")
        value = _value(head) if head else None
        return Request("build", played=_one(parse_specs(segs.get("with", [])), "build with"),
                       targets=parse_specs(segs.get("on", [])), value=value)
    if verb == "raise":  # raise 7 to 9 with 2
        if set(segs) - {"with", "to"}:
            raise CommandError("Say a raise like raise 7 to 9 with 2.")
        value = _value(segs["to"]) if segs.get("to") else None
        return Request("build", played=_one(parse_specs(segs.get("with", [])), "raise with"),
                       targets=parse_specs(head), value=value)
    # add 9 to 9: a card added to a build of its own value (a multiple build)
    if set(segs) - {"to"}:
        raise CommandError("Say it like add 9 to 9 (your card, then the build).")
    return Request("build", played=_one(parse_specs(head), "add"),
                   targets=parse_specs(segs.get("to", [])))


_KINDS = {"capture": ("capture",), "build": ("build",), "trail": ("trail",),
          "pluck": ("pluck",), "pass": ("pass",), "claim": ("claim",),
          "play": ("trail", "capture", "build")}


def _covers(specs: Sequence[CardSpec], piles: Sequence[tuple[int, Pile]],
            exact: bool) -> bool:
    """Each spec names a different pile of ``piles`` (and, if ``exact``, every pile is
    named)."""
    if exact and len(specs) != len(piles):
        return False
    if len(specs) > len(piles):
        return False

    def assign(k: int, used: frozenset[int]) -> bool:
        if k == len(specs):
            return True
        return any(j not in used and specs[k].matches_pile(p, i) and assign(k + 1, used | {j})
                   for j, (i, p) in enumerate(piles))

    return assign(0, frozenset())


def match_moves(request: Request, legal: Sequence[Move], table: Sequence[Pile]) -> list[Move]:
    """The legal moves ``request`` may mean: those that name exactly the piles it names, or,
    when there are none, those that take or build on at least those piles."""
    kinds = _KINDS[request.verb]
    found = [m for m in legal if m.kind in kinds
             and (request.played is None or request.played.matches_card(m.card))
             and (request.value is None or m.value == request.value)]
    if not request.targets:
        return found
    piles = {m: [(i, table[i]) for i in m.piles if 0 <= i < len(table)] for m in found}
    exact = [m for m in found if _covers(request.targets, piles[m], exact=True)]
    if exact:
        return exact
    return [m for m in found if _covers(request.targets, piles[m], exact=False)]


def unique_card(spec: CardSpec | None, hand: Sequence[Card]) -> Card | None:
    """The one card of ``hand`` that ``spec`` names (None: none or several)."""
    if spec is None:
        return None
    cards = [c for c in hand if spec.matches_card(c)]
    return cards[0] if len(cards) == 1 else None


def unique_piles(specs: Sequence[CardSpec], table: Sequence[Pile]) -> tuple[int, ...] | None:
    """The table piles ``specs`` name, one each (None: a spec names none or several)."""
    out: list[int] = []
    for spec in specs:
        hits = [i for i, p in enumerate(table) if spec.matches_pile(p, i)]
        if len(hits) != 1 or hits[0] in out:
            return None
        out.append(hits[0])
    return tuple(sorted(out))


def as_move(request: Request, hand: Sequence[Card], table: Sequence[Pile]) -> Move | None:
    """The one move ``request`` names, legal or not, when its cards and piles are each
    unambiguous (so that the engine can say why it is refused); else None."""
    card = unique_card(request.played, hand)
    if request.verb in ("pass", "claim"):
        return Move(request.verb)  # type: ignore[arg-type]
    if card is None:
        return None
    if request.verb == "trail":
        return Move.trail(card)
    if request.verb == "pluck":
        return Move.pluck(card)
    piles = unique_piles(request.targets, table)
    if piles is None or not piles:
        return None
    if request.verb == "capture":
        return Move.capture(card, piles)
    if request.verb == "build" and request.value is not None:
        return Move("build", card, piles, request.value, None, False)
    return None
