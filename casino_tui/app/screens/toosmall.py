"""Shown instead of everything else while the terminal is smaller than 80x24."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Center, Middle
from textual.screen import Screen
from textual.widgets import Static

MIN_WIDTH = 80
MIN_HEIGHT = 24


class TooSmallScreen(Screen[None]):
    """A clear message with the current and the needed size; the game waits behind it."""

    def compose(self) -> ComposeResult:
        with Middle(), Center():
            yield Static(id="too-small-text")

    def on_mount(self) -> None:
        self._update(self.app.size.width, self.app.size.height)

    def on_resize(self, event: events.Resize) -> None:
        self._update(event.size.width, event.size.height)

    def _update(self, width: int, height: int) -> None:
        style, lines = too_small_message(width, height)
        text = Text("\n".join(lines), justify="center")
        text.stylize("bold", 0, len(lines[0]))
        box = self.query_one("#too-small-text", Static)
        box.set_classes(style)
        box.update(text)


# (extra width, extra height) of each style of the message box: a heavy border with padding
# around, with a space either side, with nothing; or bare text
_CHROME = {"-roomy": (6, 4), "-boxed": (4, 2), "-tight": (2, 2), "-bare": (0, 0)}


def too_small_message(width: int, height: int) -> tuple[str, list[str]]:
    """The message for a ``width`` x ``height`` terminal and its box style: the fullest
    wording that fits, down to a bare "Ctrl+Q quits" (the way out always shows)."""
    need = f"{MIN_WIDTH}x{MIN_HEIGHT}"
    size = f"{width}x{height}"
    full = ["The terminal is too small", "", f"It is {size}; casino-tui needs at least {need}.",
            "Make the window larger (or the font smaller)", "and the game will come back.", "",
            "Ctrl+Q quits."]
    long = ["The terminal is too small", "", f"It is {size}; it needs {need}.",
            "Make the window larger", "(or the font smaller).", "", "Ctrl+Q quits."]
    medium = ["The terminal is too small", f"It is {size}; it needs {need}.",
              "Make it larger.", "Ctrl+Q quits."]
    short = [f"Too small: {size}", f"Needs {need}", "Ctrl+Q quits"]
    tiny = ["Too small", "Ctrl+Q quits"]
    variants: list[tuple[str, list[str]]] = [
        ("-roomy", full), ("-boxed", long), ("-boxed", medium), ("-tight", medium),
        ("-boxed", short), ("-tight", short), ("-bare", short), ("-bare", tiny),
    ]
    for style, lines in variants:
        dw, dh = _CHROME[style]
        if max(map(len, lines)) + dw <= width and len(lines) + dh <= height:
            return style, lines
    return "-bare", ["Ctrl+Q quits"]
