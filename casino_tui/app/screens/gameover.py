"""Game over: the winner and the totals; a new game, the title screen or quit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath
from typing import ClassVar, Literal

from rich import box
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ..keylinks import key_link
from ..renderonce import RenderedOnce
from ..styles import css
from .firstshow import FirstShow

GameOverChoice = Literal["new", "menu", "quit"]


@dataclass(frozen=True)
class GameOverData:
    winner: str | None
    sides: tuple[str, ...]
    scores: tuple[int, ...]
    target: int
    rounds: int
    seed: str


def _score_table(d: GameOverData) -> Table:
    """The sides and their points, the winner first."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False)
    table.add_column("Side", style="bold")
    table.add_column("Points", justify="right")
    order = sorted(range(len(d.sides)), key=lambda i: -d.scores[i])
    for i in order:
        won = d.sides[i] == d.winner
        style = "bold" if won else ""
        table.add_row(Text(("★ " if won else "  ") + d.sides[i], style=style),
                      Text(str(d.scores[i]), style=style))
    return table


class GameOverScreen(FirstShow, ModalScreen[GameOverChoice]):
    """Dismisses with "new" (n or Enter), "menu" (t or Esc) or "quit" (q). ``new_game``
    False (a table on a server, whose games the table starts): no new game, n and Enter go to
    the title screen ("menu"). ``review``: opens the review of the last round (``r``; None:
    no review). Shown at the end of every game, as the round's summary closes: styled, laid
    out and drawn once as it is first shown (:class:`FirstShow`), its table rendered once per
    width (:class:`RenderedOnce`)."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("dialogs")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n,enter", "choose('new')", "New game", id="gameover.new"),
        Binding("t,escape", "choose('menu')", "Title screen", id="gameover.menu"),
        Binding("q", "choose('quit')", "Quit", id="gameover.quit"),
        Binding("r", "review", "Review", show=False, id="gameover.review"),
    ]
    HELP_TITLE = "Game over"
    SECOND_LAYOUT = False  # laid out once as it is first shown (FirstShow)

    def __init__(self, data: GameOverData, *, new_game: bool = True,
                 review: Callable[[], object] | None = None) -> None:
        super().__init__()
        self.data = data
        self.new_game = new_game
        self.review = review

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        review = [("r", "review the last round: every play with all the hands, and what Hard "
                        "would have played instead of yours")] if self.review else []
        if not self.new_game:
            return [(self.HELP_TITLE, [("Enter / t / Esc", "title screen"), ("q", "quit"),
                                       *review])]
        return [(self.HELP_TITLE, [("n / Enter", "new game"), ("t / Esc", "title screen"),
                                   ("q", "quit"), *review])]

    def compose(self) -> ComposeResult:
        d = self.data
        title = f"{d.winner} won!" if d.winner else "The game is over"
        table = _score_table(d)
        with Vertical(id="gameover-box", classes="dialog"):
            yield Static("Game over", classes="dialog-title")
            yield Static(title, id="gameover-winner", markup=False)
            yield Static(RenderedOnce(table), id="gameover-table")
            seed = f", seed {d.seed}" if d.seed else ""  # a table's seed stays the server's
            yield Static(f"{d.rounds} round{'s' if d.rounds != 1 else ''} played, target "
                         f"{d.target}{seed}", id="gameover-info", markup=False)
            review = "   " + key_link("[b]r[/b] review", "r") if self.review is not None \
                else ""
            quit_ = key_link("[b]q[/b] quit", "q")
            if self.new_game:
                yield Static(key_link("[b]n[/b] / [b]Enter[/b] new game", "n") + "   "
                             + key_link("[b]t[/b] title screen", "t") + f"   {quit_}{review}",
                             classes="dialog-keys")
            else:
                yield Static(key_link("[b]Enter[/b] / [b]t[/b] title screen", "t")
                             + f"   {quit_}{review}", classes="dialog-keys")

    def action_review(self) -> None:
        if self.review is not None:
            self.review()

    def action_choose(self, choice: GameOverChoice) -> None:
        self.dismiss("menu" if choice == "new" and not self.new_game else choice)


class TableGameOverScreen(GameOverScreen):
    """Game over at a table on a server. ``starter`` None: this person created the table and
    may start a new game there with the same seats (n: "new"); else the name of the one who
    may (``""``: the creator has no seat), whom the others wait for. Enter, t and Esc go back
    to the tables ("menu"), q quits."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "choose('new')", "New game at this table", id="gameover.table_new"),
        Binding("enter,t,escape", "choose('menu')", "Back to the tables",
                id="gameover.table_back"),
        Binding("q", "choose('quit')", "Quit", id="gameover.quit"),
    ]
    inherit_bindings = False

    def __init__(self, data: GameOverData, *, starter: str | None) -> None:
        super().__init__(data, new_game=False)  # (a solo new game: none at a table)
        self.starter = starter

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        keys = [("n", "new game at this table, with the same seats")] \
            if self.starter is None else []
        return [(self.HELP_TITLE, [*keys, ("Enter / t / Esc", "back to the tables"),
                                   ("q", "quit")])]

    def compose(self) -> ComposeResult:
        d = self.data
        with Vertical(id="gameover-box", classes="dialog"):
            yield Static("Game over", classes="dialog-title")
            yield Static(f"{d.winner} won!" if d.winner else "The game is over",
                         id="gameover-winner", markup=False)
            yield Static(RenderedOnce(_score_table(d)), id="gameover-table")
            yield Static(f"{d.rounds} round{'s' if d.rounds != 1 else ''} played, target "
                         f"{d.target}", id="gameover-info", markup=False)
            if self.starter is not None:
                who = self.starter or "the table's creator"
                yield Static(f"Waiting for {who} to start a new game at this table",
                             id="gameover-waiting", markup=False)
                yield Static(key_link("[b]Enter[/b] / [b]t[/b] back to the tables", "t")
                             + "   " + key_link("[b]q[/b] quit", "q"), classes="dialog-keys")
            else:
                yield Static(key_link("[b]n[/b] new game at this table", "n") + "   "
                             + key_link("[b]Enter[/b] / [b]t[/b] back to the tables", "t")
                             + "   " + key_link("[b]q[/b] quit", "q"), classes="dialog-keys")

    def action_choose(self, choice: GameOverChoice) -> None:
        if choice == "new" and self.starter is not None:
            who = self.starter or "the table's creator"
            self.notify(f"Only {who} can start a new game at this table.", markup=False)
            return
        self.dismiss(choice)
