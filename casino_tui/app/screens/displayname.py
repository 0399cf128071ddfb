"""The display name: chosen once by each player on a server with tables (kept in their settings,
which over SSH belong to their key), changed later on the Settings screen."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePath
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from casino_tui.settings import MAX_DISPLAY_NAME, clean_display_name

from ..keylinks import key_link
from ..letgo import let_go_of_widgets
from ..styles import css

if TYPE_CHECKING:  # pragma: no cover
    from ..app import CasinoApp

QUESTION = (f"Choose the name other players see at your tables (1 to {MAX_DISPLAY_NAME} "
            "characters). You can change it later in Settings.")


class DisplayNameScreen(ModalScreen[str | None]):
    """Dismisses with a valid display name on Enter (an invalid one is explained and kept for
    editing), or None on Esc."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("dialogs")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="displayname.cancel"),
    ]
    HELP_TITLE = "Display name"

    def __init__(self, value: str = "") -> None:
        super().__init__()
        self.value = value

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return [(self.HELP_TITLE, [("letters", "type your name"), ("Enter", "done"),
                                   ("Esc", "cancel")])]

    def compose(self) -> ComposeResult:
        with Vertical(id="name-box", classes="dialog"):
            yield Static("Your display name", classes="dialog-title")
            yield Static(QUESTION, id="display-name-question", markup=False)
            field = Input(self.value, max_length=MAX_DISPLAY_NAME, id="display-name-input",
                          placeholder="your name")
            field.cursor_blink = False
            yield field
            yield Static("", id="display-name-error", markup=False)
            yield Static(key_link("[b]Enter[/b] done", "enter") + "     "
                         + key_link("[b]Esc[/b] cancel", "escape"), classes="dialog-keys")

    def on_unmount(self) -> None:
        let_go_of_widgets(self)  # a screen on the way to a table: not held under its game

    def on_mount(self) -> None:
        self.query_one("#display-name-input", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            name = clean_display_name(event.value)
        except ValueError as err:
            self.query_one("#display-name-error", Static).update(
                Text(f"✗ {str(err).capitalize()}.", style="bold red"))
            return
        self.dismiss(name)

    def action_cancel(self) -> None:
        self.dismiss(None)


def with_display_name(app: CasinoApp, then: Callable[[str], None]) -> None:
    """Call ``then`` with the player's display name, asking for it first (and saving it in
    their settings) if they never chose one; nothing happens if they cancel."""
    if app.settings.display_name:
        then(app.settings.display_name)
        return

    def chosen(name: str | None) -> None:
        if name:
            app.apply_settings(app.settings.with_(display_name=name))
            then(name)

    app.push_screen(DisplayNameScreen(), chosen)
