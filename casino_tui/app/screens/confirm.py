"""A yes/no question (claiming the game, leaving a game)."""

from __future__ import annotations

from pathlib import PurePath
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ..keylinks import key_link
from ..styles import css


class ConfirmScreen(ModalScreen[bool]):
    """Ask ``question`` (plain text: names in it are shown as they are, never as markup);
    dismisses with True (y or Enter) or False (n or Esc)."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("dialogs")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,enter", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]
    HELP_TITLE = "Question"

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return [(self.HELP_TITLE, [("y / Enter", "yes"), ("n / Esc", "no")])]

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="dialog"):
            yield Static(self.question, id="confirm-question", markup=False)
            yield Static(key_link("[b]y[/b] / [b]Enter[/b] yes", "y") + "     "
                         + key_link("[b]n[/b] / [b]Esc[/b] no", "n"), classes="dialog-keys")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
