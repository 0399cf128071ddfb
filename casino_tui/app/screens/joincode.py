"""Join a table by its code: a one-line input that reads the code as people type it (any case,
spaces or dashes, 0 and 1 for O and I) and says plainly when no table has it."""

from __future__ import annotations

from pathlib import PurePath
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from casino_tui.table.codes import MAX_TYPED, parse_code
from casino_tui.table.hub import TableHub

from ..keylinks import key_link
from ..letgo import let_go_of_widgets
from ..styles import css
from .waiting import HUB_ERRORS, refusal, why


class JoinCodeScreen(ModalScreen[str | None]):
    """Dismisses with the code of a table the hub has (Enter), or None (Esc). A code that is
    not one, or that no table has, is explained and kept for editing."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("dialogs")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="joincode.cancel"),
    ]
    HELP_TITLE = "Join by code"

    def __init__(self, hub: TableHub) -> None:
        super().__init__()
        self.hub = hub

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return [(self.HELP_TITLE, [("letters", "type the table's code (KAMIRO, ka-mi-ro, …)"),
                                   ("Enter", "join"), ("Esc", "cancel")])]

    def compose(self) -> ComposeResult:
        with Vertical(id="joincode-box", classes="dialog"):
            yield Static("Join a table", classes="dialog-title")
            yield Static("The table's code, as its creator read it to you (such as "
                         "ka-mi-ro):", markup=False)
            field = Input(max_length=MAX_TYPED, id="joincode-input", placeholder="e.g. KAMIRO")
            field.cursor_blink = False
            yield field
            yield Static("", id="joincode-error")
            yield Static(key_link("[b]Enter[/b] join", "enter") + "     "
                         + key_link("[b]Esc[/b] cancel", "escape"), classes="dialog-keys")

    def on_unmount(self) -> None:
        let_go_of_widgets(self)  # a screen on the way to a table: not held under its game

    def on_mount(self) -> None:
        self.query_one("#joincode-input", Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#joincode-error", Static).update("")

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            code = parse_code(event.value)
            await self.hub.find(code)
        except ValueError as err:
            self._error(str(err))
            return
        except HUB_ERRORS as err:
            self._error(f"{code}: {why(err)}")
            return
        self.dismiss(code)

    def _error(self, reason: str) -> None:
        self.query_one("#joincode-error", Static).update(refusal(reason))

    def action_cancel(self) -> None:
        self.dismiss(None)
