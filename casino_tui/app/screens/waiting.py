"""A table waiting for its players: the join code to read aloud, the seats filling as people
join (live, from the table's events), and the creator's key to start. When the game starts
(or for a table already started) the player goes to it (:meth:`CasinoApp.open_table`).

Every name comes from other players and is shown literally (rich Text, never markup).
"""

from __future__ import annotations

import contextlib
from pathlib import PurePath
from typing import TYPE_CHECKING, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import Worker

from casino_tui.table.client import TableChoice
from casino_tui.table.codes import shown, spoken
from casino_tui.table.hub import HubError, Person, SeatStatus, TableHub, TableInfo

from ..background import in_background
from ..keylinks import key_link
from ..letgo import let_go_of_widgets
from ..session import preset_title
from ..styles import css

if TYPE_CHECKING:  # pragma: no cover
    from ..app import CasinoApp


# What a call to the hub may raise: a refusal, or the server's tables out of reach (a hub over
# a connection).
HUB_ERRORS = (HubError, OSError)


def why(err: Exception) -> str:
    """Why a call to the hub failed, in a player's words."""
    if isinstance(err, HubError):
        return err.reason
    return "the server's tables cannot be reached: try again in a moment"


# ---------------------------------------------------------------------- how tables read
def sentence(reason: str) -> str:
    """The hub's reason (``every seat is taken``) as a sentence: ``Every seat is taken.``"""
    return f"{reason[:1].upper()}{reason[1:]}."


def refusal(reason: str) -> Text:
    """A refusal on a screen's error line (literal text: reasons name players)."""
    return Text(f"✗ {sentence(reason)}", style="bold red")


def game_text(info: TableInfo) -> str:
    """``Classic Cassino · 2 players · to 21``."""
    return (f"{preset_title(info.rules.preset_name)} · {info.num_players} players · "
            f"to {info.rules.target}")


def state_text(info: TableInfo) -> str:
    """Waiting (and for how many people), playing (which round) or over."""
    if info.finished:
        return "game over"
    if info.started:
        return f"playing · round {info.round_no}"
    n = info.open_seats
    return "waiting to start" if n == 0 else \
        f"waiting · {n} open seat{'s' if n != 1 else ''}"


def seat_text(seat: SeatStatus) -> str:
    """One seat in a few words: the person's name, ``open``, or the computer and its level."""
    if seat.kind == "open":
        return "open"
    if seat.kind == "computer":
        return f"{seat.name} (computer · {seat.level})" if seat.level else \
            f"{seat.name} (computer)"
    name = seat.holder or seat.name
    if seat.stand_in:
        return f"{name} (away · a computer plays)"
    return f"{name} (away)" if seat.away_since is not None else name


def seats_line(info: TableInfo) -> Text:
    """The seats of a table on one line, names literally."""
    return Text(", ".join(seat_text(s) for s in info.seats))


# ---------------------------------------------------------------------- going to a table
def arrive(app: CasinoApp, hub: TableHub, person: Person, info: TableInfo,
           seat: int | None) -> None:
    """``person`` is at the table (at ``seat``, or watching): the waiting screen until the
    game starts, or the game at once when it has started."""
    if info.started:
        app.open_table(TableChoice(info.table_id, seat))
        return

    def started(choice: TableChoice | None) -> None:
        if choice is not None:
            app.open_table(choice)

    app.push_screen(WaitingScreen(hub, person, info, seat), started)


class WaitingScreen(Screen[TableChoice | None]):
    """A table before its game starts. Dismisses with a :class:`TableChoice` when the game
    starts (the creator's ``s``, or the creator elsewhere), or None when the player leaves
    (Esc: their seat opens again)."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("dialogs")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "start", "Start", id="waiting.start"),
        Binding("escape", "leave", "Leave", id="waiting.leave"),
    ]
    HELP_TITLE = "A table waiting for players"

    def __init__(self, hub: TableHub, person: Person, info: TableInfo,
                 seat: int | None) -> None:
        super().__init__()
        self.hub = hub
        self.person = person
        self.info = info
        self._yours = info.yours  # the listing told the hub's view: this person created it
        self.seat = seat
        self._follower: Worker[None] | None = None
        self._done = False

    @property
    def creator(self) -> bool:
        """The player created this table (only the creator can start it; the hub checks)."""
        return self.seat is not None and self._yours

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        keys = [("s", "start the game (the table's creator): computers play the open "
                      "seats")] if self.creator else []
        leave = "leave the table (your seat opens again)" if self.seat is not None \
            else "stop watching"
        return [(self.HELP_TITLE, [*keys, ("Esc", leave)])]

    def compose(self) -> ComposeResult:
        with Vertical(id="waiting-box", classes="dialog wide"):
            yield Static("A table waiting for players", classes="dialog-title")
            yield Static("Join code", id="waiting-code-label")
            with Center(id="waiting-code-row"):
                yield Static(id="waiting-code")
            yield Static(id="waiting-spoken")
            yield Static(id="waiting-game")
            yield Static(id="waiting-seats")
            yield Static(id="waiting-note")
            yield Static(id="waiting-error")
            yield Static(id="waiting-keys", classes="dialog-keys")

    def on_mount(self) -> None:
        self.show(self.info)
        self._follower = in_background(self, "waiting", self._follow, exclusive=True,
                                       exit_on_error=True)

    def on_unmount(self) -> None:
        if self._follower is not None:
            self._follower.cancel()
        let_go_of_widgets(self)  # (the list of tables below a table's game held it)

    # ------------------------------------------------------------------ the table, live
    async def _follow(self) -> None:
        """Show the table again after each of its events; go to the game once it starts."""
        hub, person, table_id = self.hub, self.person, self.info.table_id
        while not self._done:
            try:
                view = await hub.snapshot(table_id, person)
                sub = await hub.subscribe(table_id, person, view.number)
            except HUB_ERRORS as err:
                self._gone(why(err))
                return
            try:
                if not await self._reload():
                    return
                while not sub.lost:
                    await sub.next()
                    sub.ready()  # the events come in bursts: one reload for them all
                    if not await self._reload():
                        return
            finally:
                sub.close()

    async def _reload(self) -> bool:
        """Fetch the table and show it; False when the screen is done (started, gone)."""
        try:
            info = await self.hub.find(self.info.code)
        except HUB_ERRORS as err:
            self._gone(why(err))
            return False
        if self._done:
            return False
        self.show(info)
        if info.started:
            self._finish(TableChoice(info.table_id, self.seat))
            return False
        return True

    def _gone(self, reason: str) -> None:
        if not self._done:
            self.notify(f"The table {self.info.code} is gone: {reason}.", severity="warning",
                        timeout=10, markup=False)
            self._finish(None)

    def _finish(self, choice: TableChoice | None) -> None:
        if not self._done:
            self._done = True
            self.dismiss(choice)

    # ------------------------------------------------------------------ drawing
    def show(self, info: TableInfo) -> None:
        self.info = info
        self._yours = self._yours or info.yours
        code = info.code
        self.query_one("#waiting-code", Static).update(Text(shown(code), style="bold"))
        listed = "listed publicly" if info.public else "private: join it by its code"
        self.query_one("#waiting-spoken", Static).update(
            Text(f"say “{spoken(code)}” · {listed}"))
        game = Text(game_text(info), style="bold")
        game.append(f" · created by {info.creator}", style="")
        self.query_one("#waiting-game", Static).update(game)
        self.query_one("#waiting-seats", Static).update(self._seats_table(info))
        self.query_one("#waiting-note", Static).update(Text(self._note(info)))
        keys = key_link("[b]s[/b] start", "s") + "   " if self.creator else ""
        leave = "leave" if self.seat is not None else "stop watching"
        keys += key_link(f"[b]Esc[/b] {leave}", "escape") + "   "
        keys += key_link("[b]?[/b] help", "question_mark")
        self.query_one("#waiting-keys", Static).update(Content.from_markup(keys))

    def _seats_table(self, info: TableInfo) -> Table:
        grid = Table.grid(padding=(0, 2))
        grid.add_column(justify="right", no_wrap=True)
        grid.add_column(no_wrap=True, max_width=24)
        grid.add_column()
        for i, s in enumerate(info.seats):
            you = " (you)" if i == self.seat else ""
            if s.kind == "open":
                name, what = Text("open", style="italic"), "waiting for a person"
            elif s.kind == "computer":
                name, what = Text(s.name), f"computer · {s.level}" if s.level else "computer"
            else:
                name, what = Text(s.holder or s.name), "person" + you
                if s.away_since is not None:
                    what += " · away"
            grid.add_row(Text(f"Seat {i + 1}", style="bold"), name, Text(what))
        return grid

    def _note(self, info: TableInfo) -> str:
        n = info.open_seats
        open_seats = ("Every seat is taken." if n == 0 else
                      f"{n} seat{'s are' if n != 1 else ' is'} open for people: when the game "
                      "starts, computers play the open seats.")
        watching = f" {info.spectators} watching." if info.spectators else ""
        if self.seat is None:
            return f"You are watching: the game shows here when it starts. {open_seats}" \
                + watching
        if self.creator:
            return f"{open_seats} Press s to start when the people are seated.{watching}"
        return f"{open_seats} {info.creator} starts the game.{watching}"

    # ------------------------------------------------------------------ keys
    async def action_start(self) -> None:
        if self._done:
            return
        if not self.creator:
            self._error(f"only {self.info.creator}, who created this table, can start it")
            return
        try:
            await self.hub.start(self.info.table_id, self.person)
        except HUB_ERRORS as err:
            self._error(why(err))
            return
        self._finish(TableChoice(self.info.table_id, self.seat))

    async def action_leave(self) -> None:
        if self._done:
            return
        self._done = True
        if self._follower is not None:
            self._follower.cancel()
        with contextlib.suppress(*HUB_ERRORS):  # the table is gone: nothing to leave
            await self.hub.leave(self.info.table_id, self.person)
        self.dismiss(None)

    def _error(self, reason: str) -> None:
        self.query_one("#waiting-error", Static).update(refusal(reason))

