"""ASCII-only terminals: which output needs it, and every symbol's one-cell ASCII stand-in.

The app draws box-drawing borders, separators (``·``), arrows, suits, check marks and the
like; so do Textual's own widgets (``tall`` borders, scroll bars, toasts) and Rich (``…`` when
text is cut). Where the terminal's output encoding cannot write them (``LC_ALL=C`` with
``PYTHONUTF8=0``, ``PYTHONIOENCODING=ascii``, a Latin-1 locale) Python would write each as
escape text (``\\u256d``) and the screen could not be used. There, and with ``--ascii``, the app
runs in ASCII-only mode: cards as ``10D``, and :class:`AsciiFilter` turns every other character
on the screen into its stand-in from :data:`ASCII_GLYPHS` (``╭─╮`` becomes ``+-+``, ``·``
``-``, ``←`` ``<``), one cell for one cell so that nothing moves. A character without a
stand-in (a letter of a player's name) becomes its unaccented letter, else ``?``.
"""

from __future__ import annotations

import codecs
import locale
import sys
import unicodedata
from collections.abc import Iterable
from typing import IO

from rich.cells import get_character_cell_size
from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter


def _box_drawing() -> dict[str, str]:
    """U+2500-U+257F: lines are ``-`` or ``|``, corners and junctions ``+``."""
    out: dict[str, str] = {}
    for code in range(0x2500, 0x2580):
        ch = chr(code)
        name = unicodedata.name(ch, "")
        if "DIAGONAL" in name:
            out[ch] = {"\u2571": "/", "\u2572": "\\"}.get(ch, "X")
            continue
        across = any(w in name for w in ("HORIZONTAL", "LEFT", "RIGHT"))
        down = any(w in name for w in ("VERTICAL", "UP", "DOWN"))
        out[ch] = "+" if across and down else "|" if down else "-"
    return out


# The symbols the app, Textual's widgets and Rich draw, and their stand-ins (one cell each).
ASCII_GLYPHS: dict[str, str] = {
    **_box_drawing(),
    # block elements: Textual's tall, outer, panel and wide borders, scroll bars, card backs
    "▀": "-", "▔": "-", "▁": "_", "▂": "_", "▃": "_", "▄": "_", "▅": "=", "▆": "=", "▇": "=",
    "█": "#", "▉": "|", "▊": "|", "▋": "|", "▌": "|", "▍": "|", "▎": "|", "▏": "|", "▐": "|",
    "▕": "|", "░": "#", "▒": "#", "▓": "#",
    "▖": "+", "▗": "+", "▘": "+", "▙": "+", "▚": "+", "▛": "+", "▜": "+", "▝": "+", "▞": "+",
    "▟": "+",
    # separators, marks and punctuation
    "·": "-", "•": "*", "★": "*", "…": ".", "–": "-", "—": "-", "✓": "+", "✔": "+",
    "✗": "x", "✘": "x", "×": "x", "“": '"', "”": '"', "„": '"', "‘": "'", "’": "'",
    "«": "<", "»": ">", "‹": "<", "›": ">", "\xa0": " ",
    # arrows and pointers
    "←": "<", "→": ">", "↑": "^", "↓": "v", "◂": "<", "◀": "<", "▸": ">", "▶": ">",
    "▴": "^", "▲": "^", "▾": "v", "▼": "v", "⏎": "<",
    # suits (ASCII cards write letters anyway; these are for any other text)
    "♠": "S", "♥": "H", "♦": "D", "♣": "C", "♤": "S", "♡": "H", "♢": "D", "♧": "C",
}


def encoding_shows(encoding: str | None, chars: Iterable[str] = ASCII_GLYPHS) -> bool:
    """True when text in ``encoding`` can hold every one of ``chars``."""
    if not encoding:
        return False
    try:
        codecs.lookup(encoding)
        "".join(chars).encode(encoding)
    except (LookupError, UnicodeEncodeError):
        return False
    return True


def output_needs_ascii(streams: Iterable[IO[str] | None] | None = None) -> bool:
    """True when the real output cannot show the app's symbols: the encoding of the streams
    Textual and the app write to (the process's own stderr and stdout, whatever replaced
    ``sys.stderr`` since), else the locale's, cannot encode them."""
    if streams is None:
        streams = (sys.__stderr__, sys.__stdout__)
    found = False
    for stream in streams:
        encoding = getattr(stream, "encoding", None)
        if stream is None or not encoding:
            continue
        found = True
        if not encoding_shows(encoding):
            return True
    return not found and not encoding_shows(locale.getpreferredencoding(False))


_CACHE: dict[str, str | None] = {}


def stand_in(ch: str) -> str | None:
    """The one-cell ASCII stand-in of ``ch``: from :data:`ASCII_GLYPHS`, else the letter
    without its accent (``é`` is ``e``); None when there is none."""
    try:
        return _CACHE[ch]
    except KeyError:
        pass
    found = ASCII_GLYPHS.get(ch)
    if found is None:
        base = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode("ascii")
        found = base if len(base) == 1 and base.isprintable() else None
    _CACHE[ch] = found
    return found


def to_ascii(text: str, unknown: set[str] | None = None) -> str:
    """``text`` in ASCII, cell for cell: each character becomes its :func:`stand_in` (``?``
    when it has none, one per cell it takes; nothing for a zero-width mark). Characters
    without a stand-in are added to ``unknown``."""
    if text.isascii():
        return text
    out: list[str] = []
    for ch in text:
        if ch.isascii():
            out.append(ch)
            continue
        cells = get_character_cell_size(ch)
        if cells == 0:
            continue
        sub = stand_in(ch)
        if sub is None:
            if unknown is not None:
                unknown.add(ch)
            sub = "?" * cells
        out.append(sub.ljust(cells))
    return "".join(out)


class AsciiFilter(LineFilter):
    """A Textual line filter: everything drawn on the screen, in ASCII (see
    :func:`to_ascii`). ``unknown`` collects the characters that had no stand-in."""

    def __init__(self, enabled: bool = True) -> None:
        super().__init__(enabled=enabled)
        self.unknown: set[str] = set()

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        unknown = self.unknown
        return [seg if seg.text.isascii() or seg.control
                else Segment(to_ascii(seg.text, unknown), seg.style, seg.control)
                for seg in segments]
