"""New game: preset, players, partnerships, seats (person or computer, level, name), target
and seed. Enter starts the game from any field, so Enter, Enter from the title starts classic
against one computer.

The fields are a :class:`GameForm`, which the Create table screen uses too (without names and
seed, its seats open for people or played by computers)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePath
from typing import ClassVar, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Static

from casino_tui.engine import PRESET_DESCRIPTIONS, PRESET_NAMES, Rules
from casino_tui.table import (
    DEFAULT_LEVEL,
    MAX_TARGET,
    GameConfig,
    SeatConfig,
    default_seats,
    parse_seed,
    seat_names,
)

from ..keylinks import key_link
from ..session import preset_title
from ..styles import css
from ..widgets.cycler import Cycler
from .firstshow import FirstShow
from .picklist import PickListScreen

MAX_SEATS = 6
ResultT = TypeVar("ResultT")

FORM_KEYS: list[tuple[str, str]] = [
    ("↑↓ / Tab", "move between the fields"),
    ("←→", "change the value of a field (preset, players, seat, ...)"),
    ("Space", "on the preset: list every preset with a filter"),
]


def seat_choices(levels: tuple[str, ...], person: str = "Person") -> list[tuple[str, str]]:
    return [("human", person), *((lv, f"Computer · {lv}") for lv in levels)]


def show_error(target: Static, err: Exception) -> None:
    """A form's error line: a red mark and the reason (names in it are not markup)."""
    target.update(Content.from_markup("[b red]✗[/] $err", err=str(err)))


def form_bindings(screen: str, action: str, label: str) -> list[BindingType]:
    """The keys of a screen with a form: Enter does ``action`` (ids ``screen.action``), Esc
    goes back (``cancel``), Up and Down move between the fields."""
    return [
        Binding("enter", action, label, id=f"{screen}.{action}"),
        Binding("escape", "cancel", "Back", id=f"{screen}.back"),
        Binding("up", "app.focus_previous", "Previous field", show=False, id=f"{screen}.up"),
        Binding("down", "app.focus_next", "Next field", show=False, id=f"{screen}.down"),
    ]


def submit_form(screen: Screen[ResultT], build: Callable[[], ResultT], error: Static) -> None:
    """Dismiss ``screen`` with what ``build`` makes of its form, or show why it cannot (its
    ValueError) on the ``error`` line."""
    try:
        result = build()
    except ValueError as err:
        show_error(error, err)
        return
    screen.dismiss(result)


class GameForm(Vertical):
    """The fields of a game: preset (Space on it lists them all), players, partnerships, a row
    per seat (a name unless ``names`` is False, and a person or a computer at a level), the
    target and, with ``seed``, the seed. :meth:`build_config` reads them."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "pick_preset", "Preset list", show=False, id="setup.preset_list"),
    ]

    def __init__(self, config: GameConfig, levels: tuple[str, ...], *, names: bool = True,
                 seed: bool = True, person: str = "Person", id: str | None = None) -> None:
        super().__init__(id=id)
        self.config = config
        self.levels = levels
        self.names = names
        self.seed = seed
        self.person = person
        self.default_level = DEFAULT_LEVEL if DEFAULT_LEVEL in levels else levels[-1]
        # The default name each seat's field was given (by seat position, as on the command
        # line); a field still showing it follows the seat when the player count changes,
        # a name the player typed stays.
        defaults = seat_names(config.players)
        self._auto_names = [defaults[i] if i < len(defaults) else "" for i in range(MAX_SEATS)]
        # Rows of seats made: only those of the game at first (the rows of seats it does not
        # have were made, styled and hidden for nothing), more when the player count grows.
        self._seat_rows = min(MAX_SEATS, max(config.players, len(config.seats)))
        # each row's fields (a new row's are in the DOM only once it is mounted)
        self._name_fields: dict[int, Input] = {}
        self._kind_fields: dict[int, Cycler] = {}

    def compose(self) -> ComposeResult:
        c = self.config
        rules = Rules.preset(c.preset)
        yield Cycler("Preset", [(n, preset_title(n)) for n in PRESET_NAMES], c.preset,
                     id="setup-preset", note="Space: list")
        yield Static(PRESET_DESCRIPTIONS[c.preset], id="setup-preset-desc")
        yield Cycler("Players", [(n, str(n)) for n in rules.player_counts], c.players,
                     id="setup-players")
        yield Cycler("Partners", [(True, "two partnerships"), (False, "each for himself")],
                     c.partnerships, id="setup-partners")
        for i in range(self._seat_rows):
            yield self._seat_row(i)
        with Horizontal(classes="field-row", id="target-row"):
            yield Static("Target", classes="field-label")
            yield Input(str(c.target if c.target is not None else rules.target),
                        id="setup-target", compact=True, type="integer", max_length=4)
            yield Static("points to win", classes="field-note")
        if self.seed:
            with Horizontal(classes="field-row"):
                yield Static("Seed", classes="field-label")
                yield Input("" if c.seed is None else str(c.seed), id="setup-seed",
                            compact=True, type="integer", placeholder="random", max_length=9)
                yield Static("the same seed deals the same cards", classes="field-note")

    def _seat_row(self, i: int) -> Horizontal:
        """Seat ``i``'s row: its label, its name (with ``names``) and who plays it."""
        c = self.config
        seat = c.seats[i] if i < len(c.seats) else SeatConfig(self._auto_names[i], False,
                                                              self.default_level)
        fields: list[Widget] = [Static(f"Seat {i + 1}", classes="seat-label")]
        if self.names:
            name = Input(seat.name, id=f"seat-name-{i}", classes="seat-name", compact=True,
                         max_length=12)
            name.cursor_blink = False
            self._name_fields[i] = name
            fields.append(name)
        kind = "human" if seat.human else seat.level
        self._kind_fields[i] = Cycler("", seat_choices(self.levels, self.person), kind,
                                      id=f"seat-kind-{i}", classes="seat-kind", label_width=0)
        fields.append(self._kind_fields[i])
        return Horizontal(*fields, classes="seat-row", id=f"seat-row-{i}")

    def on_mount(self) -> None:
        for inp in self.query(Input):
            inp.cursor_blink = False
        self._sync()

    # ------------------------------------------------------------------ state of the form
    def _rules(self) -> Rules:
        return Rules.preset(str(self.query_one("#setup-preset", Cycler).value))

    def _players(self) -> int:
        return int(self.query_one("#setup-players", Cycler).value)

    def _sync(self) -> None:
        """Show the fields that apply to the chosen preset and player count."""
        rules = self._rules()
        n = self._players()
        players = self.query_one("#setup-players", Cycler)
        if n not in rules.player_counts:
            n = 2 if 2 in rules.player_counts else rules.player_counts[0]
        players.set_choices([(k, str(k)) for k in rules.player_counts], n)
        partners = self.query_one("#setup-partners", Cycler)
        can_partner = n == 4 and rules.partnerships_for_4
        partners.disabled = not can_partner
        partners.display = can_partner
        names = seat_names(n)
        if n > self._seat_rows:  # more seats than ever shown: their rows, under the others
            self.mount_all([self._seat_row(i) for i in range(self._seat_rows, n)],
                           before="#target-row")
            self._seat_rows = n
        for i in range(self._seat_rows):
            self.query_one(f"#seat-row-{i}").display = i < n
            if not self.names:
                continue
            field = self._name_fields[i]
            if i < n and field.value.strip() in ("", self._auto_names[i]):
                self._auto_names[i] = names[i]
                field.value = names[i]
        self.query_one("#setup-preset-desc", Static).update(PRESET_DESCRIPTIONS[rules.preset_name])

    def on_cycler_changed(self, event: Cycler.Changed) -> None:
        if event.cycler.id == "setup-preset":
            self.query_one("#setup-target", Input).value = str(self._rules().target)
            self._sync()
        elif event.cycler.id == "setup-players":
            self._sync()

    def action_pick_preset(self) -> None:
        preset = self.query_one("#setup-preset", Cycler)
        if self.screen.focused is not preset:
            return
        items = [(n, f"{preset_title(n):<22} {PRESET_DESCRIPTIONS[n]}") for n in PRESET_NAMES]
        start = list(PRESET_NAMES).index(str(preset.value))

        def chosen(name: str | None) -> None:
            if name is not None:
                preset.set_value(name)
                self.query_one("#setup-target", Input).value = str(Rules.preset(name).target)
                self._sync()

        self.app.push_screen(PickListScreen(items, title="Presets", noun="presets",
                                            verb="chooses", placeholder="royal, draw, 61 …",
                                            highlight=start, numbered=False, hang=23),
                             chosen)

    # ------------------------------------------------------------------ result
    def seat_kinds(self) -> list[str]:
        """Each seat's choice: ``human``, or a computer's level."""
        return [str(self._kind_fields[i].value) for i in range(self._players())]

    def build_config(self) -> GameConfig:
        """The GameConfig the form describes (raises ValueError with a message)."""
        rules = self._rules()
        n = self._players()
        names: list[str] = []
        defaults = default_seats(n)
        seats = []
        for i, kind in enumerate(self.seat_kinds()):
            name = defaults[i].name
            if self.names:
                name = self._name_fields[i].value.strip() or name
            if name in names:
                raise ValueError(f"two seats are called {name}: give them different names")
            names.append(name)
            seats.append(SeatConfig(name, kind == "human",
                                    self.default_level if kind == "human" else kind))
        target_text = self.query_one("#setup-target", Input).value.strip()
        try:
            target = int(target_text) if target_text else rules.target
        except ValueError:
            raise ValueError("the target must be a whole number") from None
        if not 1 <= target <= MAX_TARGET:
            raise ValueError(f"the target must be from 1 to {MAX_TARGET}")
        seed = None
        if self.seed:
            seed_text = self.query_one("#setup-seed", Input).value.strip()
            seed = parse_seed(seed_text) if seed_text else None
        partners = self.query_one("#setup-partners", Cycler)
        return GameConfig(preset=rules.preset_name, players=n, seats=tuple(seats),
                          partnerships=bool(partners.value) if not partners.disabled else True,
                          target=target if target != rules.target else None, seed=seed)


class SetupScreen(FirstShow, Screen[GameConfig | None]):
    """Dismisses with the GameConfig (Enter) or None (Esc)."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("setup")

    BINDINGS: ClassVar[list[BindingType]] = form_bindings("setup", "start", "Start")
    HELP_TITLE = "New game"

    def __init__(self, config: GameConfig, levels: tuple[str, ...]) -> None:
        super().__init__()
        self.config = config
        self.levels = levels

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return [(self.HELP_TITLE, [
            *FORM_KEYS,
            ("letters", "type a name, a target or a seed"),
            ("Enter", "start the game"),
            ("Esc", "back to the title screen"),
        ])]

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        with Vertical(id="setup-box"):
            yield Static("New game", classes="dialog-title")
            yield GameForm(self.config, self.levels, id="setup-form")
            yield Static("", id="setup-error")
            yield Static(key_link("[b]Enter[/b] start", "enter") + "   [b]↑↓[/b] field   "
                         "[b]←→[/b] change   " + key_link("[b]Esc[/b] back", "escape") + "   "
                         + key_link("[b]?[/b] help", "question_mark"), classes="dialog-keys")

    def on_mount(self) -> None:
        self.query_one(GameForm).query_one("#setup-preset", Cycler).focus()

    def on_cycler_changed(self, event: Cycler.Changed) -> None:
        event.stop()
        self.query_one("#setup-error", Static).update("")

    # ------------------------------------------------------------------ result
    def build_config(self) -> GameConfig:
        """The GameConfig the form describes (raises ValueError with a message)."""
        return self.query_one(GameForm).build_config()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_start()

    def action_start(self) -> None:
        submit_form(self, self.build_config, self.query_one("#setup-error", Static))

    def action_cancel(self) -> None:
        self.dismiss(None)
