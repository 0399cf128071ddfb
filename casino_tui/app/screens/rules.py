"""A concise player's summary of a preset's rules (Left/Right switch presets from the title)."""

from __future__ import annotations

from pathlib import PurePath
from typing import TYPE_CHECKING, ClassVar

from rich.console import Group
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from casino_tui.engine import PRESET_NAMES, Rules

from ..hanging import hanging_bullets
from ..keylinks import key_link
from ..rules_text import rules_summary
from ..styles import css

if TYPE_CHECKING:  # pragma: no cover
    from ..cardfmt import CardPainter


class RulesScreen(ModalScreen[None]):
    """Shows :func:`rules_summary`; with ``browse`` Left/Right show the other presets."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("dialogs")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,enter,r", "close", "Close", id="rules.close"),
        Binding("left", "preset(-1)", "Previous preset", show=False, id="rules.previous"),
        Binding("right", "preset(1)", "Next preset", show=False, id="rules.next"),
    ]
    HELP_TITLE = "Rules"

    def __init__(self, rules: Rules, painter: CardPainter, num_players: int | None = None,
                 *, browse: bool = False) -> None:
        super().__init__()
        self.rules = rules
        self.painter = painter
        self.num_players = num_players
        self.browse = browse

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        keys = [("↑↓ PgUp PgDn", "scroll"), ("Esc / Enter / q", "close")]
        if self.browse:
            keys.insert(0, ("←→", "the previous or next preset"))
        return [(self.HELP_TITLE, keys)]

    def compose(self) -> ComposeResult:
        with Vertical(id="rules-box", classes="dialog wide"):
            yield Static("Rules", classes="dialog-title")
            with VerticalScroll(id="rules-scroll"):
                yield Static(self._text(self.num_players), id="rules-text")
            keys = key_link("←→ other presets", "right") + " · " if self.browse else ""
            yield Static(keys + "↑↓ scroll · " + key_link("Esc close", "escape"),
                         classes="dialog-keys")

    def _text(self, num_players: int | None) -> Group:
        """The summary, its bullets with a hanging indent (wrapped lines stay under the
        text, not under the bullet)."""
        return Group(*hanging_bullets(rules_summary(self.rules, self.painter, num_players)))

    def on_mount(self) -> None:
        self.query_one("#rules-scroll").focus()

    def action_preset(self, delta: int) -> None:
        if not self.browse:
            return
        names = list(PRESET_NAMES)
        i = names.index(self.rules.preset_name) if self.rules.preset_name in names else 0
        self.rules = Rules.preset(names[(i + delta) % len(names)])
        self.query_one("#rules-text", Static).update(self._text(None))
        self.query_one("#rules-scroll", VerticalScroll).scroll_home(animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
