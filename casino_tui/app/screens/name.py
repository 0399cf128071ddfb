"""Ask for a short text: the name of a saved copy (ctrl+s) or a new name for a saved game."""

from __future__ import annotations

from pathlib import PurePath
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from casino_tui.saves import MAX_NAME_LENGTH

from ..keylinks import key_link
from ..styles import css


class NameScreen(ModalScreen[str | None]):
    """Asks ``question`` (plain text, never markup); dismisses with the text typed (stripped;
    may be empty) on Enter, or None on Esc."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("dialogs")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="name.cancel"),
    ]
    HELP_TITLE = "Name"

    def __init__(self, question: str, value: str = "", placeholder: str = "") -> None:
        super().__init__()
        self.question = question
        self.value = value
        self.placeholder = placeholder

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return [(self.HELP_TITLE, [("letters", "type the name"), ("Enter", "done"),
                                   ("Esc", "cancel")])]

    def compose(self) -> ComposeResult:
        with Vertical(id="name-box", classes="dialog"):
            yield Static(self.question, id="name-question", markup=False)
            field = Input(self.value, placeholder=self.placeholder, max_length=MAX_NAME_LENGTH,
                          id="name-input")
            field.cursor_blink = False
            yield field
            yield Static(key_link("[b]Enter[/b] done", "enter") + "     "
                         + key_link("[b]Esc[/b] cancel", "escape"), classes="dialog-keys")

    def on_mount(self) -> None:
        self.query_one("#name-input", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
