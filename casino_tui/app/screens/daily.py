"""The daily deal: the day's deal (the same cards for everyone on a UTC date), the player's
result of the day, and under ``casino-tui serve`` the day's results of every player ranked by
points. Enter plays the deal."""

from __future__ import annotations

from datetime import date
from pathlib import PurePath
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from casino_tui.stats import GameRecord
from casino_tui.stats.daily import DailyRow

from ..keylinks import key_link
from ..styles import css

RESULT_WORDS = {"win": "won", "loss": "lost", "draw": "drawn"}


def ranking_table(rows: list[DailyRow]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(justify="right", no_wrap=True)
    table.add_column(no_wrap=True, max_width=30)
    table.add_column(justify="right", no_wrap=True)
    table.add_column(justify="right", no_wrap=True)
    table.add_column(no_wrap=True)
    head = "bold"
    table.add_row(Text("#", style=head), Text("Player", style=head), Text("Points", style=head),
                  Text("Hard", style=head), Text("Result", style=head))
    for r in rows:
        style = "bold reverse" if r.you else ""
        table.add_row(Text(str(r.rank), style=style), Text(r.name, style=style),
                      Text(str(r.points), style=style), Text(str(r.opponent), style=style),
                      Text(RESULT_WORDS[r.result], style=style))
    return table


class DailyScreen(ModalScreen[bool]):
    """Dismisses with True to play the day's deal (Enter or p), False to go back."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("dialogs")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,p", "choose(True)", "Play", id="daily.play"),
        Binding("escape,q", "choose(False)", "Back", id="daily.back"),
    ]
    HELP_TITLE = "Daily deal"

    def __init__(self, day: date, mine: GameRecord | None, rows: list[DailyRow] | None,
                 *, problem: str | None = None) -> None:
        super().__init__()
        self.day = day
        self.mine = mine
        self.rows = rows
        self.problem = problem

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return [(self.HELP_TITLE, [("Enter / p", "play the day's deal"),
                                   ("Esc / q", "back to the title screen")])]

    def compose(self) -> ComposeResult:
        with Vertical(id="daily-box", classes="dialog wide"):
            yield Static(f"Daily deal · {self.day.isoformat()} (UTC)", classes="dialog-title",
                         markup=False)
            if self.problem:
                yield Static(self.problem, id="daily-problem", markup=False)
            yield Static("Everyone gets the same cards today: classic Cassino against the "
                         "Hard computer.", id="daily-about")
            m = self.mine
            if m is not None and m.score is not None and m.result is not None:
                other = max((s for i, s in enumerate(m.scores) if i != m.side), default=0)
                mine = (f"Your result today: {RESULT_WORDS[m.result]}, {m.score} to {other}. "
                        "Only your first game of the day counts.")
            else:
                mine = "You have not finished today's deal yet."
            yield Static(mine, id="daily-mine", markup=False)
            if self.rows is not None:
                with VerticalScroll(id="daily-scroll"):
                    if self.rows:
                        yield Static(ranking_table(self.rows), id="daily-ranking")
                    else:
                        yield Static("Nobody on this server has finished today's deal yet.",
                                     id="daily-ranking")
                yield Static("Ranked by points; the names are the players' display names.",
                             id="daily-note")
            yield Static(key_link("Enter play today's deal", "enter") + " · "
                         + key_link("Esc back", "escape") + " · "
                         + key_link("? help", "question_mark"), classes="dialog-keys")

    def action_choose(self, play: bool) -> None:
        self.dismiss(play)
