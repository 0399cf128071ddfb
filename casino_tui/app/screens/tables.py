"""The tables of the server: each with its code, creator, game, seats (open, people, computers
with their level), whether it waits or plays, and how many watch. A player creates a table
(n), joins one by its code (j), sits at a table (Enter: an open seat, or their own seat back) or
watches a public one (w). The list refreshes on r and every few seconds.

Names come from other players and are shown literally (rich Text, never markup).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import PurePath
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from casino_tui.table.hub import HubError, Person, TableHub, TableInfo

from ..background import in_background
from ..keylinks import key_link
from ..letgo import let_go_of_widgets
from ..styles import css
from .waiting import HUB_ERRORS, arrive, game_text, seats_line, sentence, state_text, why

if TYPE_CHECKING:  # pragma: no cover
    from ..app import CasinoApp
    from .createtable import TableRequest


def table_option(info: TableInfo) -> Text:
    """A table in the list, on two lines: code, game and state; creator, seats, watchers."""
    line = Text()
    line.append(info.code, style="bold")
    line.append(f"  {game_text(info)}")
    line.append(f"  · {state_text(info)}", style="italic")
    if not info.public:
        line.append(" · private", style="italic")
    if info.your_seat is not None:
        line.append(" · your seat", style="bold")
    line.append("\n    by ", style="dim")
    line.append(info.creator)
    line.append(" · ", style="dim")
    line.append_text(seats_line(info))
    if info.spectators:
        line.append(f" · {info.spectators} watching", style="dim")
    return line


class TablesScreen(Screen[None]):
    """The list of tables (``hub.list_tables``) for ``person``; ``join``: a code to join at once
    (``ssh HOST join CODE``); ``refresh_every``: seconds between refreshes (None: only on r)."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("dialogs")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "create", "New table", id="tables.create"),
        Binding("j", "join_code", "Join by code", id="tables.join"),
        Binding("w", "watch", "Watch", id="tables.watch"),
        Binding("r,f5", "refresh", "Refresh", id="tables.refresh"),
        Binding("escape", "back", "Back", id="tables.back"),
    ]
    HELP_TITLE = "Tables"

    def __init__(self, hub: TableHub, person: Person, *, join: str | None = None,
                 refresh_every: float | None = 5.0) -> None:
        super().__init__()
        self.hub = hub
        self.person = person
        self.join = join
        self.refresh_every = refresh_every
        self.tables: list[TableInfo] = []

    @property
    def casino(self) -> CasinoApp:
        return self.app  # type: ignore[return-value]

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return [(self.HELP_TITLE, [
            ("↑↓", "choose a table"),
            ("Enter", "sit at the table (an open seat, or your own seat back)"),
            ("w", "watch the table (a public one)"),
            ("n", "create a table"),
            ("j", "join a table by its code"),
            ("r / F5", "refresh the list"),
            ("Esc", "back to the title screen"),
        ])]

    def compose(self) -> ComposeResult:
        with Vertical(id="tables-box"):
            yield Static("Tables", classes="dialog-title")
            yield Static(id="tables-who")
            yield OptionList(id="tables-list")
            yield Static("No tables yet: create one (n), or join one by its code (j).",
                         id="tables-empty")
            yield Static("   ".join([key_link("[b]Enter[/b] sit", "enter"),
                                      key_link("[b]w[/b] watch", "w"),
                                      key_link("[b]n[/b] new table", "n"),
                                      key_link("[b]j[/b] join by code", "j"),
                                      key_link("[b]r[/b] refresh", "r"),
                                      key_link("[b]Esc[/b] back", "escape")]),
                         classes="dialog-keys")

    async def on_mount(self) -> None:
        who = Text("You are ")
        who.append(self.person.name, style="bold")
        who.append(" at these tables.")
        self.query_one("#tables-who", Static).update(who)
        await self.refresh_tables()
        if self.refresh_every:
            self.set_interval(self.refresh_every, self._tick)
        if self.join is not None:
            code, self.join = self.join, None
            await self.join_code(code)

    def on_unmount(self) -> None:
        let_go_of_widgets(self)  # replaced by a table's game: not held under it

    async def on_screen_resume(self) -> None:
        await self.refresh_tables()

    async def _tick(self) -> None:
        # Only while the list is the screen in front: under a game (or a dialog) it is not
        # seen, and asking the server and redrawing every few seconds for every player cost
        # the crowd's server, and redrew the whole game screen (issue 27).
        if self.app.screen is self:
            await self.refresh_tables()

    async def refresh_tables(self) -> None:
        """Ask the hub for the tables again (keeping the one chosen)."""
        try:
            tables = await self.hub.list_tables(self.person)
        except HUB_ERRORS as err:
            self.notify(sentence(why(err)), severity="warning", markup=False)
            return
        menu = self.query_one("#tables-list", OptionList)
        chosen = self.chosen()
        self.tables = tables
        menu.clear_options()
        menu.add_options([Option(table_option(t), id=t.table_id) for t in tables])
        ids = [t.table_id for t in tables]
        if ids:
            menu.highlighted = ids.index(chosen.table_id) \
                if chosen is not None and chosen.table_id in ids else 0
        menu.display = bool(tables)
        self.query_one("#tables-empty").display = not tables
        if tables:
            menu.focus()

    def chosen(self) -> TableInfo | None:
        """The highlighted table."""
        index = self.query_one("#tables-list", OptionList).highlighted
        if index is None or not 0 <= index < len(self.tables):
            return None
        return self.tables[index]

    # ------------------------------------------------------------------ keys
    async def action_refresh(self) -> None:
        await self.refresh_tables()

    def action_back(self) -> None:
        self.dismiss(None)

    async def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        info = next((t for t in self.tables if t.table_id == event.option.id), None)
        if info is not None:
            await self.sit(info)

    async def action_watch(self) -> None:
        info = self.chosen()
        if info is None:
            return
        try:
            await self.hub.spectate(info.table_id, self.person)
        except HUB_ERRORS as err:
            self._refused(err)
            return
        arrive(self.casino, self.hub, self.person, info, None)

    def action_create(self) -> None:
        from .createtable import CreateTableScreen, table_defaults

        app = self.casino
        self.app.push_screen(CreateTableScreen(table_defaults(app.start_config), app.levels()),
                             self._create)

    async def _create(self, request: TableRequest | None) -> None:
        if request is None:
            return
        try:
            info = await self.hub.create_table(request.config, self.person,
                                               public=request.public)
            seat = await self.hub.take_seat(info.table_id, self.person)  # the creator's
        except HUB_ERRORS as err:
            self._refused(err)
            return
        arrive(self.casino, self.hub, self.person, info, seat)

    def action_join_code(self) -> None:
        from .joincode import JoinCodeScreen

        async def typed(code: str | None) -> None:
            if code is not None:
                await self.join_code(code)

        self.app.push_screen(JoinCodeScreen(self.hub), typed)

    # ------------------------------------------------------------------ going to a table
    async def sit(self, info: TableInfo) -> None:
        """Take an open seat at the table (or one's own seat back), then wait there or
        play."""
        try:
            seat = await self.hub.take_seat(info.table_id, self.person)
            info = replace(await self.hub.find(info.code), your_seat=seat, yours=info.yours)
        except HUB_ERRORS as err:
            self._refused(err)
            return
        arrive(self.casino, self.hub, self.person, info, seat)

    async def join_code(self, code: str) -> None:
        """Come to the table with this code: at an open seat (or one's own) if there is one,
        else watching it."""
        try:
            info = await self.hub.join(code, self.person)
        except HUB_ERRORS as err:
            self.notify(f"There is no table {code} to join: {why(err)}."
                        if isinstance(err, HubError) else sentence(why(err)),
                        title="Join a table", severity="warning", timeout=15, markup=False)
            return
        seat: int | None
        try:
            seat = await self.hub.take_seat(info.table_id, self.person)
            info = replace(await self.hub.find(info.code), your_seat=seat, yours=info.yours)
        except HUB_ERRORS as err:
            seat = None
            self.notify(f"You are watching the table {info.code}: {why(err)}.",
                        title="Join a table", timeout=10, markup=False)
        arrive(self.casino, self.hub, self.person, info, seat)

    def _refused(self, err: Exception) -> None:
        self.notify(sentence(why(err)), severity="warning", timeout=10, markup=False)
        in_background(self, "tables-refresh", self.refresh_tables, exit_on_error=True)
