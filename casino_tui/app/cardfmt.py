"""How cards look: Unicode suits or ASCII letters, two- or four-colour decks.

Cards are drawn as small "faces" (a light background with the suit's colour) so they stand out
from the table in any theme; every state that matters (preview, selection, a computer's last
play) also has a non-colour cue (underline, bold, a marker) so the game works with NO_COLOR.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text

if TYPE_CHECKING:  # pragma: no cover
    from typing_extensions import TypeIs

    from casino_tui.engine import Build, Card, Pile

# The engine is imported on first use, not on the start-up path (the title screen needs none).
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
SUIT_SYMBOLS = ("♠", "♥", "♦", "♣")


def _is_build(pile: object) -> TypeIs[Build]:
    from casino_tui.engine import Build

    return isinstance(pile, Build)

FACE_BG = "#e4e4e4"
BLACK = "#1c1c1c"
RED = "#c62828"
BLUE = "#1554c0"
GREEN = "#17752f"

HIGHLIGHT_BG = "#ffd75f"  # the piles a previewed move uses
SELECTED_BG = "#87d7ff"  # piles in a free selection
RECENT_BG = "#d7afff"  # cards a computer just put on the table

SUIT_LETTERS = ("S", "H", "D", "C")

# Big cards (a large screen): a framed face, the rank and suit in the top left and bottom
# right corners and the suit in the middle. CARD_SIZES[level - 1] is the face's (width,
# lines) at each level of big cards; the frame adds two of each.
CARD_SIZES: tuple[tuple[int, int], ...] = ((5, 3), (7, 5))
FRAME_COLOUR = "#808080"


def card_size(level: int) -> tuple[int, int]:
    """A big card's (width, height) at ``level`` (1, 2), its frame included."""
    w, h = CARD_SIZES[level - 1]
    return w + 2, h + 2

# A card in the engine's notation inside a sentence ("3S (3) cannot take ...", "10♦"): a rank
# and a suit standing alone (not part of a longer word or number).
_CARD_IN_TEXT = re.compile(r"(?<![\w♠♥♦♣])(10|[AJQK2-9])([SHDC♠♥♦♣])(?![\w♠♥♦♣])")
_SUIT_OF = {ch: i for i, ch in enumerate(SUITS + SUIT_SYMBOLS)}


def face_background(dark: bool, background: str | None) -> str:
    """The colour of a card's face in a theme: light grey on dark themes; on light themes
    white, or a shade darker than the background when that is almost white itself (a face of
    the background's colour would vanish)."""
    if dark or not background:
        return FACE_BG
    from textual.color import Color, ColorParseError

    try:
        bg = Color.parse(background)
    except ColorParseError:
        return FACE_BG
    if bg.ansi is not None:  # the terminal's own colours: unknown, keep the default
        return FACE_BG
    return "#ffffff" if bg.brightness <= 0.9 else bg.darken(0.12).hex


@dataclass(frozen=True)
class CardPainter:
    """Turns cards and piles into Rich text according to the player's settings.

    ``ascii_only``: the terminal shows only ASCII (see :mod:`casino_tui.app.glyphs`): what
    is drawn around the cards (the hand's frames) is ASCII too."""

    symbols: bool = True
    four_colour: bool = False
    face_bg: str = FACE_BG  # see face_background()
    ascii_only: bool = False

    # ------------------------------------------------------------------ plain strings
    def label(self, card: Card) -> str:
        """``10♦`` (or ``10D``): the engine's card notation (``card_str``)."""
        return RANKS[card >> 2] + (SUIT_SYMBOLS if self.symbols else SUITS)[card & 3]

    def text(self, sentence: str) -> str:
        """``sentence`` (an engine's reason, a hint) with every card written in this style:
        ``3S`` or ``3♠`` becomes ``3♠`` with symbols, ``3S`` without."""
        suits = SUIT_SYMBOLS if self.symbols else SUITS

        def card(m: re.Match[str]) -> str:
            return m.group(1) + suits[_SUIT_OF[m.group(2)] % 4]

        return _CARD_IN_TEXT.sub(card, sentence)

    def labels(self, cards: Iterable[Card], sep: str = " ") -> str:
        return sep.join(self.label(c) for c in cards)

    def frame(self, chosen: bool) -> tuple[str, str, str, str, str, str]:
        """A card's frame in the hand: (top left, top right, bottom left, bottom right,
        across, down); the chosen card's is heavy (``#`` and ``=`` in ASCII)."""
        if self.ascii_only:
            return ("#", "#", "#", "#", "=", "#") if chosen else ("+", "+", "+", "+", "-", "|")
        if chosen:
            return ("┏", "┓", "┗", "┛", "━", "┃")
        return ("┌", "┐", "└", "┘", "─", "│")

    def big_card(self, card: Card, bg: str | None = None, *, level: int = 1,
                 heavy: bool = False, underline: bool = False, number: str = "",
                 frame_style: Style | None = None) -> list[Text]:
        """``card`` as a big card of ``level`` (:func:`card_size` gives its size), the frame
        heavy when ``heavy``, ``number`` (the hand's key) in its top edge."""
        style = self.face_style(card, bg)
        corner = self.face_style(card, bg, underline=underline)
        label = self.label(card)
        suit = label[-1]
        w, h = CARD_SIZES[level - 1]
        face = []
        for i in range(h):
            if i == 0:
                line = Text.assemble((label, corner), (" " * (w - len(label)), style))
            elif i == h - 1:
                line = Text.assemble((" " * (w - len(label)), style), (label, corner))
            elif i == h // 2:
                line = Text.assemble((" " * (w // 2), style), (suit, style),
                                     (" " * (w - w // 2 - 1), style))
            else:
                line = Text(" " * w, style=style)
            face.append(line)
        return self._framed(face, w, heavy, number, frame_style)

    def big_back(self, level: int = 1) -> list[Text]:
        """A card's back as a big card (a hidden hand)."""
        back = Style(color="#5f87af", bgcolor="#303a4a")
        w, h = CARD_SIZES[level - 1]
        return self._framed([Text(self.back() * w, style=back)] * h, w, False, "", None)

    def _framed(self, face: list[Text], width: int, heavy: bool, number: str,
                frame_style: Style | None) -> list[Text]:
        tl, tr, bl, br, h, v = self.frame(heavy)
        fs = frame_style or Style(color=FRAME_COLOUR, bold=heavy)
        out = [Text(tl + number + h * (width - len(number)) + tr, style=fs)]
        for line in face:
            row = Text(v, style=fs)
            row.append_text(line)
            row.append(v, style=fs)
            out.append(row)
        out.append(Text(bl + h * width + br, style=fs))
        return out

    def back(self) -> str:
        return "▒" if self.symbols else "#"

    def backs(self, n: int) -> str:
        """``n`` card backs in a row that can be counted at a glance (one cell each, with a
        visible gap between them)."""
        return ("▌" if self.symbols else "#") * n

    # ------------------------------------------------------------------ styles
    def suit_colour(self, card: Card) -> str:
        suit = card & 3
        if self.four_colour:
            return (BLACK, RED, BLUE, GREEN)[suit]
        return RED if suit in (1, 2) else BLACK

    def face_style(self, card: Card, bg: str | None = None, *,
                   underline: bool = False) -> Style:
        return Style(color=self.suit_colour(card), bgcolor=bg or self.face_bg, bold=True,
                     underline=underline)

    # ------------------------------------------------------------------ rich text
    def face(self, card: Card, bg: str | None = None, *, underline: bool = False,
             width: int = 0) -> Text:
        s = self.label(card)
        if width:
            s = s.rjust(width)
        return Text(s, style=self.face_style(card, bg, underline=underline))

    def faces(self, cards: Sequence[Card], sep: str = " ", bg: str | None = None) -> Text:
        out = Text()
        for i, c in enumerate(cards):
            if i:
                out.append(sep)
            out.append_text(self.face(c, bg))
        return out

    def build_text(self, build: Build, owner_name: str, bg: str | None = None,
                   *, underline: bool = False) -> Text:
        """``[7♣ 2♦] 9 single · North``."""
        bg = bg or self.face_bg
        out = Text("[", style="bold")
        for i, c in enumerate(build.cards):
            if i:
                out.append(" ", style=Style(bgcolor=bg) if bg != self.face_bg else "")
            out.append_text(self.face(c, bg, underline=underline))
        out.append("]", style="bold")
        out.append(f" {build.value_str()}", style="bold")
        out.append(f" {build.kind} · {owner_name}", style="italic")
        return out

    def pile_text(self, pile: Pile, owner_names: Sequence[str], bg: str | None = None,
                  *, underline: bool = False) -> Text:
        if _is_build(pile):
            return self.build_text(pile, owner_names[pile.owner], bg, underline=underline)
        return self.face(pile, bg, underline=underline)

    def pile_label(self, pile: Pile) -> str:
        """Short plain form of a pile for one-line descriptions: ``5♥`` or ``[7♣ 2♦]=9``."""
        if _is_build(pile):
            return f"[{self.labels(pile.cards)}]={pile.value_str()}"
        return self.label(pile)
