"""A dialog's dimmed background: each style's tint worked out once, not once per piece of text.

A dialog (a ``ModalScreen``: the round's summary, help, ...) shows the screen under it dimmed:
Textual renders that screen and tints every piece of text of it
(``BackgroundScreen.process_segments``), working the tint out again for each one: the style
without its links, both of its colours blended with the dialog's background colour, a new
style made of them and added to the old. The round's summary over the table, at every round's
end of every player (at once for a crowd), tinted about 270 pieces of text in 50 styles.

:func:`memo_tints` keeps each style's tint, per background colour, for the process (and for
every game forked from the server's fork server after it showed a summary over a table): a
style seen again gets the tinted style worked out the first time, by Textual's own code, so
each piece of text gets the same style as before. At most :data:`MAX_STYLES` styles are kept
per colour, :data:`MAX_COLORS` colours.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.renderables.background_screen import BackgroundScreen

MAX_STYLES = 1024  # tinted styles kept per colour: a screen under a dialog has about 50
MAX_COLORS = 8  # colours kept: one per dialog background (and theme)
_tints: dict[Color, dict[Style | None, Style]] = {}
_installed: list[Any] = []  # (Textual's own function, then the replacement)


def _memo_process_segments(cls: type[BackgroundScreen], segments: Iterable[Segment],
                           color: Color) -> Iterator[Segment]:
    """Textual's ``process_segments`` with each style's tint kept (see the module)."""
    textual = _installed[0]
    tints = _tints.get(color)
    if tints is None:
        if len(_tints) >= MAX_COLORS:
            _tints.pop(next(iter(_tints)))  # the oldest
        tints = _tints[color] = {}
    for segment in segments:
        text, style, control = segment
        if control:
            yield segment
            continue
        tinted = tints.get(style)
        if tinted is None:
            (done,) = textual(cls, [Segment(text, style)], color)
            tinted = done.style
            assert tinted is not None  # (Textual's gives every piece of text a style)
            if len(tints) >= MAX_STYLES:
                tints.pop(next(iter(tints)))
            tints[style] = tinted
        yield Segment(text, tinted, control)


def memo_tints() -> bool:
    """Keep each style's tint in ``BackgroundScreen.process_segments`` (once per process;
    idempotent). Whether it is now kept (False: this Textual's is not the class method known
    here, and is left as it is)."""
    current = vars(BackgroundScreen).get("process_segments")
    if _installed and current is _installed[1]:
        return True
    if not isinstance(current, classmethod):
        return False
    replacement = classmethod(_memo_process_segments)
    _installed[:] = [current.__func__, replacement]
    BackgroundScreen.process_segments = replacement  # type: ignore[assignment, method-assign]
    return True


__all__ = ["MAX_COLORS", "MAX_STYLES", "memo_tints"]
