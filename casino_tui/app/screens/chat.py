"""Say a line to the table: the chat key's one-line input (tables on a server)."""

from __future__ import annotations

from pathlib import PurePath
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from casino_tui.table.hub import CHAT_MAX

from ..keylinks import key_link
from ..styles import css


class ChatScreen(ModalScreen[str | None]):
    """One line of chat (at most ``CHAT_MAX`` characters): dismisses with the text typed on
    Enter (None when it is blank), or None on Esc."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("dialogs")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="chat.cancel"),
    ]
    HELP_TITLE = "Chat"

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return [(self.HELP_TITLE, [("letters", "type what to say to the table"),
                                   ("Enter", "say it"), ("Esc", "say nothing")])]

    def compose(self) -> ComposeResult:
        with Vertical(id="chat-box", classes="dialog"):
            yield Static("Say to the table:", id="chat-question", markup=False)
            field = Input(placeholder=f"up to {CHAT_MAX} characters", max_length=CHAT_MAX,
                          id="chat-input")
            field.cursor_blink = False
            yield field
            yield Static(key_link("[b]Enter[/b] say it", "enter") + "     "
                         + key_link("[b]Esc[/b] cancel", "escape"), classes="dialog-keys")

    def on_mount(self) -> None:
        self.query_one("#chat-input", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value if event.value.strip() else None)

    def action_cancel(self) -> None:
        self.dismiss(None)
