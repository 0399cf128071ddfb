"""Shown instead of everything else while the terminal is smaller than 80x24."""

from __future__ import annotations

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
        self.query_one("#too-small-text", Static).update(
            f"[b]The terminal is too small[/b]\n\n"
            f"It is {width}x{height}; casino-tui needs at least {MIN_WIDTH}x{MIN_HEIGHT}.\n"
            f"Make the window larger (or the font smaller)\nand the game will come back.\n\n"
            f"Ctrl+Q quits.")
