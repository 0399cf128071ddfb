"""Statistics: games played and won per preset and per opponent level, points and sweeps per
round, the highest score, winning streaks and a chart of the results over time.

The figures come from the player's ledger (:mod:`casino_tui.stats`), read when the screen
opens; a damaged ledger is reported on the screen (and rebuilt), never fatal."""

from __future__ import annotations

from pathlib import PurePath
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from casino_tui.stats import Figures, chart, preset_label
from casino_tui.stats.figures import Tally

from ..keylinks import key_link
from ..styles import css

CHART_WIDTH = 60  # marks in the chart (the dialog is 76 wide)
# rows of the dialog around the figures: border, title and its margin, the keys and their
# margin (and the problem's lines and margin when there is one)
FRAME_ROWS = 6
TEXT_WIDTH = 72  # the dialog's width inside its border and padding


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{rate * 100:.0f}%"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def tally_table(figures: Figures) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(no_wrap=True, min_width=22)
    for _ in range(3):
        table.add_column(justify="right", no_wrap=True)
    table.add_row("", Text("Played", style="bold"), Text("Won", style="bold"),
                  Text("Win rate", style="bold"))
    t = figures.total
    table.add_row(Text("All games", style="bold"), str(t.played), str(t.won), _pct(t.win_rate))

    def section(title: str, tallies: dict[str, Tally], label: object = str) -> None:
        table.add_row(Text(title, style="bold underline"), "", "", "")
        for name, tally in tallies.items():
            shown = label(name) if callable(label) else name
            table.add_row(Text("  " + shown), str(tally.played), str(tally.won),
                          _pct(tally.win_rate))

    section("By preset", figures.by_preset, preset_label)
    section("By opponent level", figures.by_level)
    return table


def others_table(figures: Figures) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(no_wrap=True)
    best = figures.highest_score
    table.add_row("Points per round", _num(figures.points_per_round))
    table.add_row("Sweeps per round", _num(figures.sweeps_per_round))
    table.add_row("Highest game score", "-" if best is None else str(best))
    table.add_row("Winning streak",
                  f"{figures.current_streak} now, best {figures.best_streak}")
    table.add_row("Daily deals played", str(figures.daily))
    return table


class StatsScreen(ModalScreen[None]):
    """The figures of ``figures``; ``problem``: what was wrong with the ledger, if anything."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("dialogs")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,enter,t", "close", "Close", id="stats.close"),
    ]
    HELP_TITLE = "Statistics"

    def __init__(self, figures: Figures, *, problem: str | None = None,
                 ascii: bool = False) -> None:
        super().__init__()
        self.figures = figures
        self.problem = problem
        self.ascii = ascii

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return [(self.HELP_TITLE, [("↑↓ PgUp PgDn", "scroll"),
                                   ("Esc / Enter / q", "back to the title screen")])]

    def compose(self) -> ComposeResult:
        f = self.figures
        with Vertical(id="stats-box", classes="dialog wide"):
            yield Static("Statistics", classes="dialog-title")
            if self.problem:
                yield Static(self.problem, id="stats-problem", markup=False)
            with VerticalScroll(id="stats-scroll"):
                if not f.total.played:
                    yield Static("No finished games yet: play a game to the end to see your "
                                 "statistics here.", id="stats-empty")
                else:
                    yield Static(tally_table(f), id="stats-table")
                    yield Static(others_table(f), id="stats-others")
                    span = f.first_day if f.first_day == f.last_day \
                        else f"{f.first_day} to {f.last_day}"
                    yield Static(f"Results over time ({f.total.played} games, {span})",
                                 id="stats-chart-title", markup=False)
                    yield Static(chart(f.results, CHART_WIDTH, ascii=self.ascii),
                                 id="stats-chart", markup=False)
                    yield Static("win rate of each group of games, oldest on the left",
                                 id="stats-chart-note")
                if f.shared:
                    s = "s" if f.shared != 1 else ""
                    yield Static(f"{f.shared} game{s} played by several people at one "
                                 "keyboard not counted.", id="stats-shared")
            yield Static("↑↓ scroll · " + key_link("Esc back", "escape") + " · "
                         + key_link("? help", "question_mark"), classes="dialog-keys")

    def on_mount(self) -> None:
        self.query_one("#stats-scroll").focus()
        self._fit(self.size.height)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.height)

    def _fit(self, height: int) -> None:
        """The figures scroll within the screen, under the title and above the keys."""
        frame = FRAME_ROWS
        if self.problem:
            frame += 1 + -(-len(self.problem) // TEXT_WIDTH)
        self.query_one("#stats-scroll").styles.max_height = max(3, height - frame)

    def action_close(self) -> None:
        self.dismiss(None)
