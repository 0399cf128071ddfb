"""Create a table on the server: the game (preset, players, partnerships, target: the New game
screen's form), each seat open for a person or played by a computer at a level, and whether the
table is listed publicly or private (joined by its code only)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from casino_tui.table import GameConfig, default_seats

from ..keylinks import key_link
from ..letgo import let_go_of_widgets
from ..styles import css
from ..widgets.cycler import Cycler
from .setup import FORM_KEYS, MAX_SEATS, GameForm, form_bindings, submit_form

PERSON = "Person (open)"


@dataclass(frozen=True)
class TableRequest:
    """The table to create: its game (human seats are open for people) and its listing."""

    config: GameConfig
    public: bool = True


def table_defaults(config: GameConfig | None = None) -> GameConfig:
    """The form's first values: ``config``'s game with every seat open for a person."""
    base = config or GameConfig()
    return GameConfig(preset=base.preset, players=base.players,
                      seats=default_seats(MAX_SEATS, humans=MAX_SEATS),
                      partnerships=base.partnerships, target=base.target)


class CreateTableScreen(ModalScreen[TableRequest | None]):
    """Dismisses with a :class:`TableRequest` (Enter) or None (Esc)."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("setup", "dialogs")

    BINDINGS: ClassVar[list[BindingType]] = form_bindings("create", "create", "Create")
    HELP_TITLE = "New table"

    def __init__(self, config: GameConfig, levels: tuple[str, ...]) -> None:
        super().__init__()
        self.config = config
        self.levels = levels

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return [(self.HELP_TITLE, [
            *FORM_KEYS,
            ("Seat", "open for a person, or a computer at a level"),
            ("Listed", "public (in the list of tables) or private (joined by its code)"),
            ("Enter", "create the table: you sit at its first seat for a person"),
            ("Esc", "back to the tables"),
        ])]

    def compose(self) -> ComposeResult:
        with Vertical(id="create-box", classes="dialog wide"):
            yield Static("New table", classes="dialog-title")
            yield GameForm(self.config, self.levels, names=False, seed=False, person=PERSON,
                           id="create-form")
            yield Cycler("Listed", [(True, "public: in the list of tables"),
                                    (False, "private: joined by its code")], True,
                         id="create-public")
            yield Static("You take the first seat for a person; the other open seats wait for "
                         "people. When you start, computers play the seats still open.",
                         id="create-note")
            yield Static("", id="create-error")
            yield Static(key_link("[b]Enter[/b] create", "enter") + "   [b]↑↓[/b] field   "
                         "[b]←→[/b] change   " + key_link("[b]Esc[/b] back", "escape") + "   "
                         + key_link("[b]?[/b] help", "question_mark"), classes="dialog-keys")

    def on_unmount(self) -> None:
        let_go_of_widgets(self)  # a screen on the way to a table: not held under its game

    def on_mount(self) -> None:
        self.query_one("#setup-preset", Cycler).focus()

    def on_cycler_changed(self, event: Cycler.Changed) -> None:
        event.stop()
        self.query_one("#create-error", Static).update("")

    def build_request(self) -> TableRequest:
        """The table the form describes (raises ValueError with a message)."""
        config = self.query_one(GameForm).build_config()
        if not any(s.human for s in config.seats):
            raise ValueError("a table needs a seat for you: make one seat a person's")
        return TableRequest(config, bool(self.query_one("#create-public", Cycler).value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_create()

    def action_create(self) -> None:
        submit_form(self, self.build_request, self.query_one("#create-error", Static))

    def action_cancel(self) -> None:
        self.dismiss(None)
