"""The whole log of the game (``l`` at the table): every entry in full, at the screen's width.

The table's log panel shows one line per entry (the latest ones, cut to its width); here every
entry of the game is wrapped under its own first line, the newest at the bottom, scrolled to the
end when it opens.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath
from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..hanging import Hanging
from ..styles import css

INDENT = 2  # a wrapped entry's later lines start this far in, so each entry stands apart


def log_text(entries: Sequence[tuple[str, bool]]) -> Group:
    """``entries`` ((text, is_note), oldest first), each wrapped with a hanging indent; notes
    (new deal, round over) in italics, as in the log panel."""
    lines = []
    for text, note in entries:
        line = Text(text, style="dim italic" if note else "")
        lines.append(Hanging(line, INDENT) if line.cell_len > INDENT else line)
    return Group(*lines)


class FullLogScreen(ModalScreen[None]):
    """Every entry of the log, in full; ↑↓ PgUp PgDn Home End scroll, Esc (or l, q) closes."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("dialogs")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,l,enter", "close", "Close", id="log.close"),
    ]
    HELP_TITLE = "Log"

    def __init__(self, entries: Sequence[tuple[str, bool]], title: str = "Log") -> None:
        super().__init__()
        self.entries = tuple(entries)
        self.title_text = title

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return [(self.HELP_TITLE, [("↑↓ PgUp PgDn Home End", "scroll"),
                                   ("Esc / l / q", "back to the table")])]

    def compose(self) -> ComposeResult:
        with Vertical(id="fulllog-box", classes="dialog wide"):
            yield Static(Text(self.title_text), classes="dialog-title")
            with VerticalScroll(id="fulllog-scroll"):
                if self.entries:
                    yield Static(log_text(self.entries), id="fulllog-text")
                else:
                    yield Static(Text("Nothing has happened yet.", style="dim"),
                                 id="fulllog-text")
            yield Static("↑↓ PgUp PgDn scroll · Esc back", classes="dialog-keys")

    def on_mount(self) -> None:
        scroll = self.query_one("#fulllog-scroll", VerticalScroll)
        scroll.focus()
        self.call_after_refresh(scroll.scroll_end, animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
