"""Cards, piles and moves as sentences, for people who listen to the game or read it in braille.

Cards are words by default ("ten of diamonds") or short ("10D"), a setting. Everything here is
written from the engine's public objects (cards, piles, moves, move events, round summaries), so
a sentence never says more than the seat it is written for may know.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from casino_tui.engine import Build, Card, Move, MoveEvent, Pile, RoundSummary, Rules
from casino_tui.engine.cards import RANK_NAMES, RANKS, SUIT_NAMES, SUITS

CARD_STYLES = ("words", "short")
# the scoring items of a round summary, as spoken (see casino_tui.engine.scoring)
_ITEM_WORDS = {
    "cards": "most cards", "most_S": "most spades", "most_H": "most hearts",
    "most_D": "most diamonds", "most_C": "most clubs", "big_casino": "big casino",
    "little_casino": "little casino", "aces": "aces", "sweeps": "sweeps",
    "last_capture": "last capture", "spade_cards": "spade cards",
    "all_eleven": "all eleven bonus", "seven_of_diamonds": "seven of diamonds",
    "quartets": "quartets", "penalties": "build duty penalties",
}
_COURT_PLURALS = {11: "jacks", 12: "queens", 13: "kings"}
# a card in the engine's notation inside a sentence (a reason, a hint): 10D, AS, 7C
_CARD_IN_TEXT = re.compile(r"\b(10|[A2-9JQK])(?:([SHDC])\b|([♠♥♦♣]))")
_SYMBOLS = "♠♥♦♣"


def join_words(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else many or word + 's'}"


@dataclass(frozen=True)
class Speaker:
    """Writes cards in the player's style: ``words`` (the ten of diamonds) or ``short`` (10D)."""

    style: str = "words"

    @property
    def short(self) -> bool:
        return self.style == "short"

    def card(self, card: Card, *, article: bool = True) -> str:
        if self.short:
            return RANKS[card >> 2] + SUITS[card & 3]
        name = f"{RANK_NAMES[card >> 2]} of {SUIT_NAMES[card & 3]}"
        return f"the {name}" if article else name

    def cards(self, cards: Iterable[Card], *, article: bool = True) -> str:
        return join_words([self.card(c, article=article) for c in cards])

    def text(self, sentence: str) -> str:
        """``sentence`` (an engine's reason, a hint) with every card in the engine's notation
        (``3S``) written in this style."""
        def card(m: re.Match[str]) -> str:
            suit = SUITS.index(m.group(2)) if m.group(2) else _SYMBOLS.index(m.group(3))
            if self.short:
                return m.group(1) + SUITS[suit]
            return f"{RANK_NAMES[RANKS.index(m.group(1))]} of {SUIT_NAMES[suit]}"

        return _CARD_IN_TEXT.sub(card, sentence)

    # ------------------------------------------------------------------ piles
    def value(self, value: int, court: bool) -> str:
        return _COURT_PLURALS.get(value, str(value)) if court else str(value)

    def build(self, build: Build, names: Sequence[str], me: int | None) -> str:
        owner = "yours" if build.owner == me else f"{names[build.owner]}'s"
        kind = "single" if build.single else "multiple"
        return (f"a {kind} build of {self.value(build.value, build.court)} "
                f"({self.cards(build.cards, article=False)}), {owner}")

    def pile(self, pile: Pile, names: Sequence[str], me: int | None) -> str:
        if isinstance(pile, Build):
            return self.build(pile, names, me)
        return self.card(pile, article=False)

    def pile_ref(self, pile: Pile, names: Sequence[str]) -> str:
        """A pile as the object of a sentence: ``the four of clubs``, ``North's build of 9``."""
        if isinstance(pile, Build):
            return f"{names[pile.owner]}'s build of {self.value(pile.value, pile.court)}"
        return self.card(pile)

    def table(self, table: Sequence[Pile], names: Sequence[str], me: int | None) -> str:
        if not table:
            return "The table is empty."
        parts = [f"{i + 1}: {self.pile(p, names, me)}" for i, p in enumerate(table)]
        return f"On the table, {plural(len(table), 'pile')}. " + "; ".join(parts) + "."

    # ------------------------------------------------------------------ moves
    def move(self, table: Sequence[Pile], move: Move, names: Sequence[str], *,
             sweeps: bool = True) -> str:
        """What ``move`` will do, for the player choosing it (present tense)."""
        kind = move.kind
        piles = [table[i] for i in move.piles if 0 <= i < len(table)]
        refs = join_words([self.pile_ref(p, names) for p in piles])
        if kind == "trail":
            return f"Trail {self.card(move.card)}."
        if kind == "capture":
            sweep = ", a sweep" if sweeps and len(move.piles) == len(table) else ""
            return f"Take {refs} with {self.card(move.card)}{sweep}."
        if kind == "build":
            value = self.value(move.value or 0, move.court)
            raised = [p for p in piles if isinstance(p, Build) and p.value != move.value]
            if raised:
                return f"Raise {refs} to {value} with {self.card(move.card)}."
            if any(isinstance(p, Build) for p in piles) and not move.single:
                return f"Add {self.card(move.card)} to {refs}, making a multiple build of {value}."
            kind_word = "single" if move.single else "multiple"
            return f"Build {value} with {self.card(move.card)} on {refs}, a {kind_word} build."
        if kind == "pluck":
            return f"Pluck {self.card(move.card)} from the table into your pile."
        if kind == "pass":
            return "Pass: no pluck this turn."
        if kind == "claim":
            return "Claim the game: your side has reached the target."
        return f"{move}."  # pragma: no cover - every kind is handled above

    def event(self, table_before: Sequence[Pile], ev: MoveEvent, names: Sequence[str],
              side_names: Sequence[str], me: int | None, *, sweeps: bool = True) -> str:
        """What happened, in the past tense, naming the player (``You`` for ``me``)."""
        move = ev.move
        who = "You" if ev.seat == me else names[ev.seat]
        kind = move.kind
        piles = [table_before[i] for i in move.piles if 0 <= i < len(table_before)]
        refs = join_words([self.pile_ref(p, names) for p in piles])
        if kind == "trail":
            text = f"{who} trailed {self.card(move.card)}"
        elif kind == "capture":
            taken = [c for c in ev.captured if c != move.card]
            text = f"{who} took {self.cards(taken)} with {self.card(move.card)}"
            if ev.sweep and sweeps:
                text += ", a sweep"
        elif kind == "build":
            value = self.value(move.value or 0, move.court)
            raised = [p for p in piles if isinstance(p, Build) and p.value != move.value]
            multiple = ev.build is not None and not ev.build.single
            kind_word = "multiple" if multiple else "single"
            if raised:
                text = f"{who} raised {refs} to {value} with {self.card(move.card)}"
            else:
                text = (f"{who} built {value} with {self.card(move.card)} on {refs}, "
                        f"a {kind_word} build")
        elif kind == "pluck":
            text = f"{who} plucked {self.card(move.card)}"
        elif kind == "pass":
            text = f"{who} did not pluck"
        elif kind == "claim":
            text = f"{who} claimed the game" + (
                "" if ev.claim_won is None else " and won" if ev.claim_won
                else " too early, and lost")
        else:  # pragma: no cover
            text = f"{who}: {move}"
        extras: list[str] = []
        if ev.penalty:
            extras.append("and broke the build duty: 2 points to the other side")
        for side, items in sorted(ev.immediate.items()):
            pts = sum(items.values())
            if pts and not ev.penalty:
                extras.append(f"{plural(pts, 'point')} to {side_names[side]}")
        if ev.drew is not None:
            extras.append(f"{'you' if ev.seat == me else 'they'} drew a card")
        if extras:
            text += ", " + ", ".join(extras)
        return text + "."

    # ------------------------------------------------------------------ scores
    def summary(self, s: RoundSummary, side_names: Sequence[str], rules: Rules,
                game_over: bool) -> list[str]:
        """A round's result in sentences: each side's points by item, then the game score."""
        lines = [f"Round {s.round_no} is over."]
        for i, side in enumerate(s.scores):
            items = [f"{_ITEM_WORDS.get(k, k.replace('_', ' '))} {v}"
                     for k, v in side.items.items() if v]
            during = s.immediate[i] if i < len(s.immediate) else 0
            if during:
                items.append(f"during play {during}")
            total = side.total + during
            what = f": {join_words(items)}" if items else ""
            lines.append(f"{side_names[i]} scored {plural(total, 'point')}{what}.")
        if s.residue:
            to = "nobody" if s.residue_to is None else side_names[s.residue_to]
            lines.append(f"The cards left on the table went to {to}.")
        game = join_words([f"{n} {v}" for n, v in zip(side_names, s.game_scores, strict=False)])
        if rules.game_end == "fixed_rounds":
            lines.append(f"Game score: {game}.")
        else:
            lines.append(f"Game score: {game}; the target is {rules.target}."
                         if not game_over else f"Game score: {game}.")
        return lines
