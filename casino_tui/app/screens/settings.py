"""Settings: card style, four-colour deck, theme, computer move speed, undo and, on a server
with tables, the player's display name (saved to disk)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import PurePath
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from casino_tui.engine import parse_cards
from casino_tui.settings import MAX_DISPLAY_NAME, SPEED_DELAYS, Settings, clean_display_name

from ..cardfmt import CardPainter, face_background
from ..keylinks import key_link
from ..styles import css
from ..widgets.cycler import Cycler

SAMPLE_CARDS = tuple(parse_cards("AS 10H 9D JC"))
SPEED_LABELS = {"slow": "slow", "normal": "normal", "fast": "fast", "instant": "instant"}


class SettingsScreen(ModalScreen[Settings | None]):
    """Enter saves (dismisses with the new settings); Esc cancels (None). With
    ``display_name`` (a server with tables) the player's display name is a field too."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("dialogs", "setup")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "save", "Save", id="settings.save"),
        Binding("escape", "cancel", "Cancel", id="settings.cancel"),
        Binding("up", "app.focus_previous", "Previous", show=False, id="settings.up"),
        Binding("down", "app.focus_next", "Next", show=False, id="settings.down"),
    ]
    HELP_TITLE = "Settings"

    def __init__(self, settings: Settings, themes: Sequence[str],
                 forced_ascii: bool = False, display_name: bool = False) -> None:
        super().__init__()
        self.settings = settings
        self.themes = list(themes)
        self.forced_ascii = forced_ascii
        self.display_name = display_name

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return [(self.HELP_TITLE, [("↑↓", "choose a setting"), ("←→", "change it"),
                                   ("Enter", "save"), ("Esc", "cancel")])]

    def compose(self) -> ComposeResult:
        s = self.settings
        speeds = [(k, f"{SPEED_LABELS[k]} ({SPEED_DELAYS[k]:g} s)") for k in SPEED_DELAYS]
        with Vertical(id="settings-box", classes="dialog"):
            yield Static("Settings", classes="dialog-title")
            yield Cycler("Card style", [("unicode", "Unicode suits ♠♥♦♣"),
                                        ("ascii", "ASCII letters SHDC")], s.card_style,
                         id="set-cards", label_width=16,
                         note="--ascii is on" if self.forced_ascii else "")
            yield Cycler("Four colours", [(False, "off"), (True, "on")], s.four_colour,
                         id="set-colours", label_width=16)
            yield Cycler("Theme", [(t, t) for t in self.themes], s.theme, id="set-theme",
                         label_width=16)
            yield Cycler("Computer speed", speeds, s.speed, id="set-speed", label_width=16)
            yield Cycler("Undo (u)", [(True, "on"), (False, "off")], s.undo, id="set-undo",
                         label_width=16, note="against the computer")
            if self.display_name:
                with Horizontal(classes="field-row", id="settings-name-row"):
                    yield Static("Display name", classes="field-label")
                    field = Input(s.display_name, id="set-name", compact=True,
                                  max_length=MAX_DISPLAY_NAME, placeholder="not chosen yet")
                    field.cursor_blink = False
                    yield field
                    yield Static("shown at tables", classes="field-note")
                yield Static("", id="settings-error", markup=False)
            yield Static(id="settings-sample")
            yield Static("↑↓ choose · ←→ change · " + key_link("Enter save", "enter") + " · "
                         + key_link("Esc cancel", "escape"), classes="dialog-keys")

    def on_mount(self) -> None:
        self.query_one("#set-cards").focus()
        self._sample()

    def _current(self) -> Settings:
        return replace(
            self.settings,
            card_style=self.query_one("#set-cards", Cycler).value,
            four_colour=bool(self.query_one("#set-colours", Cycler).value),
            theme=str(self.query_one("#set-theme", Cycler).value),
            speed=self.query_one("#set-speed", Cycler).value,
            undo=bool(self.query_one("#set-undo", Cycler).value),
        )

    def _sample(self) -> None:
        s = self._current()
        theme = self.app.current_theme
        p = CardPainter(symbols=s.symbols, four_colour=s.four_colour,
                        face_bg=face_background(theme.dark, theme.background))
        out = Text("Sample:  ", style="bold")
        out.append_text(p.faces(SAMPLE_CARDS, sep="  "))
        self.query_one("#settings-sample", Static).update(out)

    def on_cycler_changed(self, event: Cycler.Changed) -> None:
        if event.cycler.id == "set-theme":
            self.app.theme = str(event.value)
        self._sample()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    def action_save(self) -> None:
        settings = self._current()
        if self.display_name:
            typed = self.query_one("#set-name", Input).value
            if typed.strip() or self.settings.display_name:
                try:
                    settings = settings.with_(display_name=clean_display_name(typed))
                except ValueError as err:
                    self.query_one("#settings-error", Static).update(
                        f"✗ {str(err).capitalize()}.")
                    self.query_one("#set-name", Input).focus()
                    return
        self.dismiss(settings)

    def action_cancel(self) -> None:
        self.app.theme = self.settings.theme
        self.dismiss(None)
