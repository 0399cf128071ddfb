"""Hot-seat privacy: hides the table between two people's turns until the next one is ready."""

from __future__ import annotations

from pathlib import PurePath
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ..styles import css


class PrivacyScreen(ModalScreen[None]):
    """Covers the whole screen; any key (or a click, a tap) dismisses it."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("dialogs")

    HELP_TITLE = "Passing the keyboard"

    def __init__(self, name: str) -> None:
        super().__init__()
        self.player = name

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return [(self.HELP_TITLE, [("any key, a click",
                                    f"show {self.player}'s hand and play")])]

    def compose(self) -> ComposeResult:
        with Vertical(id="privacy-box", classes="dialog"):
            yield Static(Content.from_markup("Pass the keyboard to [b]$name[/b]",
                                             name=self.player), id="privacy-title")
            yield Static(f"{self.player}, press any key (or tap) to see your hand.\n"
                         "Everyone else: look away!", id="privacy-text", markup=False)

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        self.dismiss(None)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.dismiss(None)
