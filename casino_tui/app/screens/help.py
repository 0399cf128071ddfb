"""Every key of the current screen, and the keys that work everywhere."""

from __future__ import annotations

from pathlib import PurePath
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..keylinks import key_link
from ..styles import css

GLOBAL_KEYS: list[tuple[str, str]] = [
    ("? F1", "help for the current screen"),
    ("Ctrl+Q", "quit casino-tui at once"),
]

Sections = list[tuple[str, list[tuple[str, str]]]]


def help_table(sections: Sections) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for n, (title, keys) in enumerate([*sections, ("Everywhere", GLOBAL_KEYS)]):
        if n:
            table.add_row("", "")
        table.add_row(Text(title, style="bold underline"), "")
        for key, what in keys:
            table.add_row(Text(key), Text(what))  # plain text (a player's name, "[", ...)
    return table


class HelpScreen(ModalScreen[None]):
    """Lists the keys; Esc, Enter, q, ? or F1 closes it."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("dialogs")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,q,question_mark,f1", "close", "Close", id="help.close"),
    ]

    def __init__(self, sections: Sections) -> None:
        super().__init__()
        self.sections = sections

    def help_sections(self) -> Sections:
        return [("Help", [("Esc / Enter / q", "close the help"),
                          ("↑↓ PgUp PgDn", "scroll")])]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box", classes="dialog wide"):
            yield Static("Keys", classes="dialog-title")
            with VerticalScroll(id="help-scroll"):
                yield Static(help_table(self.sections), id="help-text")
            yield Static("↑↓ scroll · " + key_link("Esc closes", "escape"),
                         classes="dialog-keys")

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)
