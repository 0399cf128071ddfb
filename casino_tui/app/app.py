"""The Textual App: screens, settings, card style, the minimum-size guard and the game flow.

Only the title screen is imported on the start-up path; other screens, the engine's heavier
parts and the computer players' worker process are imported when first needed.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import PurePath
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import App
from textual.binding import Binding, BindingType

from casino_tui.settings import Settings, load_settings, save_settings

from . import firstframe, quitting
from .background import in_background
from .cardfmt import CardPainter, face_background
from .cellcache import fewer_cell_lengths
from .output import QuickFilters, compact_output
from .screens import firstshow
from .screens.title import TitleScreen
from .screens.toosmall import MIN_HEIGHT, MIN_WIDTH, TooSmallScreen
from .sharedcss import SharedStylesheet, theme_variables
from .strips import lazy_strip_caches
from .styles import css
from .stylescache import unkeyed_inner_outer
from .tint import memo_tints

if TYPE_CHECKING:  # pragma: no cover
    from datetime import datetime
    from pathlib import Path

    from rich.console import RenderableType
    from textual.dom import DOMNode
    from textual.driver import Driver
    from textual.filter import LineFilter
    from textual.geometry import Size

    from casino_tui.engine import Rules, State
    from casino_tui.saves import LoadedGame, SaveEntry, SaveSlot, SaveStore
    from casino_tui.stats import GameRecord
    from casino_tui.table import GameConfig
    from casino_tui.table.client import SeatClient, TableChoice
    from casino_tui.table.events import TableView
    from casino_tui.table.hub import Person, TableHub, TableInfo
    from casino_tui.table.replay import Replay
    from casino_tui.table.weblink import WebLinks

    from .glyphs import AsciiFilter
    from .players import Chooser
    from .screens.game import GameScreen
    from .screens.gameover import GameOverChoice


class CasinoApp(App[None]):
    """casino-tui. Keyword arguments are the command line's choices and the test hooks:

    ``config``: defaults of the New game screen; ``state`` with ``config``: start straight at
    the table with this position (tests); ``chooser_factory``: how computer players decide
    (default: the AI worker process, or the server's pool of computers when the environment
    names it; tests pass an in-process deterministic chooser);
    ``settings``: instead of the saved ones; ``ascii``: force ASCII cards; ``ascii_only``:
    draw everything in ASCII, cards, borders and symbols (``--ascii``, or a terminal whose
    encoding has no such symbols: see :mod:`casino_tui.app.glyphs`); ``store``: the saved
    games (default: ``open_store()``, which honours ``$CASINO_TUI_DATA_DIR``); ``resume``: a
    loaded game to open at once (``--continue``, ``--load``); ``notice``: a message to show
    when the app starts; ``handle_signals``: SIGTERM and SIGHUP save and quit (the real
    program; see :mod:`casino_tui.app.signals`); ``hub``: the tables of the server the app
    runs under (the title screen offers Tables; see :mod:`casino_tui.table.hub`); ``person``:
    who the app is at those tables (its name is the player's display name, asked for once);
    ``tables_link``: the environment naming the server's table channel (the app connects to
    it at start, then offers Tables); ``tables``: the app runs under a server with tables (its
    Settings offer the display name; implied by ``hub`` or ``tables_link``); ``join``: the
    code of a table to join (``ssh -t HOST join CODE``, a valid code), once there is a hub;
    ``web_links``: where the title screen's Browser entry gets a one-time link to play in a
    web browser (the server's tables, when the server has a web front end);
    ``replay``: a saved game to replay at once (``casino-tui replay FILE``; closing it quits).
    """

    TITLE = "casino-tui"
    # The app's and the title's CSS, and the table's (with its dialogs'), which every player
    # comes to: a screen whose file the app's stylesheet did not have yet restyled every node
    # of the app as it was pushed (the title under it again, the toasts' rack, the tooltip)
    # (parsed once, in the fork server, under ``serve``: casino_tui/app/sharedcss.py). Not the
    # New game screen's: its rules for a compact ``Input`` apply to the table's dialogs once
    # it was shown, and a table shown first (``--continue``) is drawn without them.
    CSS_PATH: ClassVar[list[str | PurePath]] = css("app", "title", "game", "dialogs")
    # Textual annotates this `ClassVar[...] | None`, which mypy reads as an instance variable
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [  # type: ignore[misc]
        (0, "-narrow"), (110, "-wide")]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark,f1", "help", "Help", show=False, id="app.help"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, id="app.quit"),
    ]
    ENABLE_COMMAND_PALETTE = False
    # Seconds between refreshes of the list of tables (None: only on its refresh key; tests).
    tables_refresh: float | None = 5.0
    # The hub's clock, for how long a person at a table has been away (tests fix it).
    table_clock: Callable[[], float] = time.time

    def __init__(self, *, config: GameConfig | None = None, state: State | None = None,
                 chooser_factory: Callable[[], Chooser] | None = None,
                 settings: Settings | None = None, ascii: bool = False,
                 ascii_only: bool = False, save_settings_to_disk: bool = True,
                 store: SaveStore | None = None,
                 resume: LoadedGame | None = None, notice: str | None = None,
                 handle_signals: bool = False, tables: bool = False,
                 join: str | None = None, hub: TableHub | None = None,
                 tables_link: Mapping[str, str] | None = None,
                 person: Person | None = None, daily: bool = False,
                 clock: Callable[[], datetime] | None = None,
                 replay: Replay | None = None,
                 web_links: WebLinks | None = None) -> None:
        super().__init__()
        # the lines of the screen make their caches when first used: about 1 MiB less a game
        lazy_strip_caches()
        # a widget's drawn lines go with it, not kept by Textual's cache of two styles
        unkeyed_inner_outer()
        # texts' widths remembered for the last 512 texts, not Rich's 4,096
        fewer_cell_lengths()
        # a dialog's dimmed background: each style's tint worked out once per process
        memo_tints()
        # CSS parsed once per process (and before the fork, in the fork server), not per app
        self.stylesheet = SharedStylesheet(variables=self.get_css_variables())
        self.web_links = web_links
        self.start_replay = replay
        self.hub = hub
        self.person = person
        self.start_daily = daily
        self.clock = clock
        self.tables_link = tables_link  # the environment naming the server's table channel
        # on the way to the server's tables (from on_mount until the channel answers or fails):
        # the title offers Tables from its first frame, as it will once they are reached
        self.reaching_tables = hub is None and tables_link is not None
        # ... and that way's first look for a table to go back to is the title's first one
        self.tables_from_link = self.reaching_tables
        self.tables = tables or hub is not None or tables_link is not None
        self.join_code = join
        self.handle_signals = handle_signals
        self.exit_signal: int | None = None  # the signal that ended the app
        self._store = store
        self.resume = resume
        self.start_notice = notice
        self._latest: SaveEntry | None = None
        self._elsewhere = 0  # unfinished games open in other windows (Continue skips them)
        # a game in progress at a hub's table where the player sits (Continue, without a save)
        self.table_to_continue: TableInfo | None = None
        self.settings = settings if settings is not None else load_settings()
        self.ascii_only = ascii_only
        self.force_ascii = ascii or ascii_only
        self._ascii_filter: AsciiFilter | None = None
        if ascii_only:
            from .glyphs import AsciiFilter

            self._ascii_filter = AsciiFilter()
        self._line_filters = QuickFilters(() if self._ascii_filter is None
                                          else (self._ascii_filter,))
        self.start_config = config
        self.start_state = state
        self.chooser_factory = chooser_factory
        self.save_settings_to_disk = save_settings_to_disk
        self.too_small = False
        self._size_known: Size | None = None  # the terminal's size of the last resize passed on
        self._pending_start: tuple[GameConfig | None, State | None, LoadedGame | None] | None \
            = None
        self._chooser: Chooser | None = None
        self.painter = self._make_painter()
        self.animation_level = "none"
        self.quitting = False  # exit() was called: no frame is drawn again

    # ------------------------------------------------------------------ settings
    def _make_painter(self) -> CardPainter:
        theme = self.current_theme
        return CardPainter(symbols=self.settings.symbols and not self.force_ascii,
                           ascii_only=self.ascii_only, four_colour=self.settings.four_colour,
                           face_bg=face_background(theme.dark, theme.background))

    def _theme_changed(self, _theme: object) -> None:
        """Card faces follow the theme (a light theme gets faces that stand out from it)."""
        painter = self._make_painter()
        if painter == self.painter:
            return
        self.painter = painter
        for screen in self.game_screens():
            screen.settings_changed()

    def apply_settings(self, settings: Settings) -> None:
        self.settings = settings
        self.painter = self._make_painter()
        if settings.theme in self.available_themes:
            self.theme = settings.theme
        if self.save_settings_to_disk and save_settings(settings) is None:
            from casino_tui.settings import settings_path

            self.notify(f"Your settings could not be saved in {settings_path().parent}: they "
                        "apply until you quit. Free some space or make that folder writable "
                        "to keep them.", severity="warning", timeout=10, markup=False)
        for game in self.game_screens():
            game.settings_changed()
        for screen in self.screen_stack:
            if isinstance(screen, TitleScreen):
                screen.refresh_menu()

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters (its ANSI-to-truecolour one passing lines that it would not change
        as they are: :class:`casino_tui.app.output.QuickTruecolor`), and in ASCII-only mode the
        one that draws everything in ASCII."""
        return self._line_filters(super().get_line_filters())

    # ------------------------------------------------------------------ start and size
    def get_css_variables(self) -> dict[str, str]:
        """Textual's variables of the theme, generated once per process and theme (the fork
        server's are every game's): Textual makes the theme's colour system anew each time,
        twice as an app starts."""
        variables = theme_variables(self.current_theme, self.get_theme_variable_defaults(),
                                    super().get_css_variables)
        self.theme_variables = variables  # as Textual's own sets it
        return variables

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this platform, reading input that is not UTF-8 without dying
        (see :mod:`casino_tui.app.input_bytes`), and on Linux with its input thread asleep
        while nobody types (:mod:`casino_tui.app.quiet_input`). What it draws is sent compact
        (:mod:`casino_tui.app.output`)."""
        from .input_bytes import lenient_input
        from .quiet_input import quiet_input

        compact_output()

        driver = super().get_driver_class()
        lenient_input(driver)
        return quiet_input(driver)

    def get_default_screen(self) -> TitleScreen:
        return TitleScreen()

    def on_load(self) -> None:
        if self.handle_signals:  # before the terminal is set up
            from .signals import install

            install(self)

    @property
    def return_code(self) -> int | None:
        """Textual's (1 after an unhandled exception), or 128 + N when signal N ended the
        app."""
        if self.exit_signal is not None:
            return 128 + self.exit_signal
        return super().return_code

    def exit(self, result: None = None, return_code: int = 0,
             message: RenderableType | None = None) -> None:
        """Textual's exit, after telling what waits for the app to quit
        (:mod:`casino_tui.app.quitting`: a forked game stops its garbage collector)."""
        self.quitting = True
        quitting.begun()
        super().exit(result, return_code, message)

    def update_styles(self, node: DOMNode, animate: bool = True) -> None:
        """Textual's restyle of a node and its descendants (a class or pseudo-class changed),
        except once the app quits: no frame is drawn again (Textual holds every repaint from
        its exit on), and as it takes the screens apart the focused widget of each is blurred
        and restyled with all it holds, a third of what a quit at the round's end cost the
        game in Python (about 2.5 ms of a forked game's CPU, which 200 players quitting
        together pay at once); nor a node of a screen not yet shown that restyles all of
        itself as it is first shown (:func:`firstshow.restyle_held`)."""
        if self.quitting or firstshow.restyle_held(node):
            return
        super().update_styles(node, animate)

    def on_mount(self) -> None:
        if firstframe.waiting():  # (a game forked by the server: its priority, lowered then)
            self.call_after_refresh(self._first_frame_drawn)
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        if self.settings.theme in self.available_themes:
            self.theme = self.settings.theme
        if self.start_notice:
            self.notify(self.start_notice, markup=False, timeout=10)
        if self.hub is None and self.tables_link is not None:
            # Under `casino-tui serve`: the server's tables, over the table channel.
            in_background(self, "tables", self._connect_tables)
        elif self.join_code is not None and self.hub is not None:
            code, self.join_code = self.join_code, None
            self.show_tables(join=code)
        elif self.join_code is not None:  # a server without tables: nothing to join
            self.notify(f"There is no table {self.join_code} to join: tables are not open on "
                        "this server yet.", title="Join a table", severity="warning",
                        timeout=30, markup=False)
        if self.resume is not None:
            game, self.resume = self.resume, None
            self.start_loaded(game)
        elif self.start_state is not None:
            self.start_game(self.start_config, self.start_state)
        elif self.start_daily:
            self.play_daily()
        elif self.start_replay is not None:
            replay, self.start_replay = self.start_replay, None
            self._push_replay(replay, lambda _: self.exit())
        self._check_size(self.size.width, self.size.height)

    def _first_frame_drawn(self) -> None:
        """The first frame is drawn: once it has reached the terminal (on a terminal, once
        Textual's output thread has written it), tell what waits for it
        (:mod:`casino_tui.app.firstframe`)."""
        after_written = getattr(self._driver, "after_written", None)
        if after_written is None:  # headless, or another driver: drawn is all there is
            firstframe.written()
        else:
            after_written(firstframe.written)

    def on_resize(self, event: events.Resize) -> None:
        if event.size == self._size_known:
            # Textual's driver tells the terminal's size as the app starts, after the app has
            # taken it: passed on, the screen would be laid out and drawn whole once more
            event.prevent_default()
            return
        self._size_known = event.size
        self._check_size(event.size.width, event.size.height)

    def _check_size(self, width: int, height: int) -> None:
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        if small == self.too_small:
            return
        self.too_small = small
        if small:
            self.push_screen(TooSmallScreen())
            return
        if isinstance(self.screen, TooSmallScreen):
            self.pop_screen()
        if self._pending_start is not None:
            config, state, loaded = self._pending_start
            self._pending_start = None
            self.start_game(config, state, loaded=loaded)

    # ------------------------------------------------------------------ computer players
    def chooser(self) -> Chooser:
        if self._chooser is None:
            if self.chooser_factory is not None:
                self._chooser = self.chooser_factory()
            else:
                import os

                from .players import PoolChooser, WorkerChooser

                # under ``casino-tui serve``: the server's pool, no process of our own
                self._chooser = PoolChooser.from_environment(os.environ) or WorkerChooser()
        return self._chooser

    async def action_quit(self) -> None:
        self.close_games()
        self.shutdown_chooser()
        self.exit()

    def close_games(self) -> None:
        """Release the save files of every game screen (quitting)."""
        for screen in self.game_screens():
            screen.close_save()

    def game_screens(self) -> list[GameScreen]:
        """The game screens on the stack. None without importing the game screen's module when
        no game was opened (a quit at the title imported it, about 40 ms of CPU, to find
        none)."""
        module = sys.modules.get("casino_tui.app.screens.game")
        if module is None:
            return []
        game_screen: type[GameScreen] = module.GameScreen
        return [s for s in self.screen_stack if isinstance(s, game_screen)]

    def shutdown_chooser(self) -> None:
        if self._chooser is not None:
            self._chooser.shutdown()
            self._chooser = None

    def on_unmount(self) -> None:
        self.shutdown_chooser()

    # ------------------------------------------------------------------ saved games
    @property
    def store(self) -> SaveStore:
        if self._store is None:
            from casino_tui.saves import open_store

            self._store = open_store()
        return self._store

    def saved_game_label(self) -> str | None:
        """A description of the saved game that Continue would resume, if any."""
        from casino_tui.saves import SaveError

        try:
            self._latest = self.store.latest_unfinished()
            self._elsewhere = 0 if self._latest else len(self.store.unfinished_elsewhere())
        except SaveError:
            self._latest, self._elsewhere = None, 0
        e = self._latest
        if e is None:
            return None
        names = " v ".join(e.side_names())
        return f"{e.name} · round {e.round_no}" if e.name else f"{names} · round {e.round_no}"

    def no_continue_note(self) -> str:
        """Why Continue is off (after :meth:`saved_game_label` found nothing), in a few words."""
        if self._elsewhere == 1:
            return "open in another window"
        if self._elsewhere > 1:
            return "open in other windows"
        return "no saved game"

    def can_load(self) -> bool:
        from casino_tui.saves import SaveError

        try:
            return bool(self.store.entries(verify=False))
        except SaveError:
            return False

    def saves_changed(self) -> None:
        """Saved games were deleted or renamed: refresh the title screen's menu."""
        for screen in self.screen_stack:
            if isinstance(screen, TitleScreen):
                screen.refresh_menu()

    def continue_latest(self) -> None:
        entry = self._latest or self.store.latest_unfinished()
        if entry is None and self.table_to_continue is not None:
            from casino_tui.table.client import TableChoice

            table = self.table_to_continue
            self.open_table(TableChoice(table.table_id, table.your_seat))
            return
        if entry is None:
            from casino_tui.saves import SaveError

            try:
                blocked = self.store.continue_blocked()
            except SaveError:
                blocked = None
            self.notify(blocked or "There is no saved game to continue.", severity="warning",
                        timeout=10 if blocked else None)
            return
        self.open_saved(entry)

    def show_load(self) -> None:
        from .screens.load import LoadScreen

        def chosen(entry: SaveEntry | None) -> None:
            if entry is not None:
                self.open_saved(entry)

        self.push_screen(LoadScreen(self.store), chosen)

    def show_replay(self, target: SaveEntry | Path) -> None:
        """Replay a saved game, read only (a file that cannot be opened is told, as loading
        it would)."""
        from casino_tui.saves import SaveError
        from casino_tui.table.replay import open_replay

        try:
            replay = open_replay(self.store, target)
        except SaveError as e:
            self.notify(str(e), severity="error", timeout=8, markup=False)
            return
        self._push_replay(replay)

    def _push_replay(self, replay: Replay, then: Callable[[None], None] | None = None) -> None:
        from .screens.replay import ReplayScreen

        self.push_screen(ReplayScreen(replay, self.painter), then)

    def open_saved(self, entry: SaveEntry) -> None:
        """Open a saved game; a game open in another window may be opened read-only."""
        from casino_tui.saves import GameInUseError, SaveError

        from .screens.confirm import ConfirmScreen

        try:
            game = self.store.load(entry)
        except GameInUseError as e:
            def decided(yes: bool | None) -> None:
                if yes:
                    try:
                        self.start_loaded(self.store.load(entry, read_only=True))
                    except SaveError as err:
                        self.notify(str(err), severity="error", markup=False)

            self.push_screen(ConfirmScreen(f"{e} Open it read-only (your moves will not be "
                                           "saved)?"), decided)
            return
        except SaveError as e:
            self.notify(str(e), severity="error", timeout=8, markup=False)
            return
        self.start_loaded(game)

    def start_loaded(self, game: LoadedGame) -> None:
        """Go to the table with a game from the saves (its seats, names and computers)."""
        from casino_tui.table import loaded_config

        config = loaded_config(game)
        if game.notice:
            self.notify(game.notice, timeout=8, markup=False)
        if game.read_only:
            self.notify("This game is open read-only: your moves are not saved.",
                        severity="warning", timeout=8)
        self.start_game(config, game.state, loaded=game)

    # ------------------------------------------------------------------ tables
    async def _connect_tables(self) -> None:
        """Reach the server's tables (the channel its environment names): the title screen then
        offers Tables, and a ``join CODE`` from the shell goes on. A channel that cannot be
        used is told; the solo game goes on."""
        from casino_tui.table.hub import HubError
        from casino_tui.table.hub import Person as _Person
        from casino_tui.table.remote import hub_from_environment

        link = self.tables_link

        def waiting(attempt: int, waited: float) -> None:  # a busy server: say so, go on
            self.notify(f"The server is busy: still reaching its tables ({waited:.0f} s, try "
                        f"{attempt}). Solo games work meanwhile.", title="Tables",
                        timeout=10, markup=False)

        try:
            hub = await hub_from_environment(link, on_wait=waiting)
        except HubError as err:
            self.reaching_tables = False
            self.refresh_title()  # no Tables entry
            self.notify(f"{err.reason}. Solo games work as usual.", title="Tables",
                        severity="warning", timeout=15, markup=False)
            return
        self.reaching_tables = False
        if hub is None:
            self.refresh_title()
            return
        self.hub = hub
        if hub.offers_web:  # the server has a web front end: the title offers a link
            self.web_links = hub
        if self.person is None:
            self.person = _Person(hub.player, self.settings.display_name or "")
        # the table to continue, if any, is looked for once, below (or, joining, here)
        self.refresh_title(look=self.join_code is not None)
        if self.join_code is not None:
            code, self.join_code = self.join_code, None
            self.show_tables(join=code)
            return
        await self._back_to_table(hub, self.person)

    async def _back_to_table(self, hub: TableHub, person: Person) -> None:
        """A player who holds a seat at a game in progress (they dropped, or the server
        restarted) is taken back to it at once from the title screen; with several such
        tables, the list of tables shows them."""
        from casino_tui.table.client import TableChoice
        from casino_tui.table.hub import HubError

        from .screens.title import TitleScreen

        try:
            tables = await hub.list_tables(person)
        except (HubError, OSError):
            return
        mine = [t for t in tables
                if t.your_seat is not None and t.started and not t.finished]
        found = mine[0] if mine else None
        if found != self.table_to_continue:
            self.table_to_continue = found
            self.refresh_title()
        if not mine or not isinstance(self.screen, TitleScreen):
            return
        if len(mine) > 1:
            self.show_tables()
            return
        self.notify(f"Back at the table {mine[0].code}.", title="Tables", timeout=6,
                    markup=False)
        self.open_table(TableChoice(mine[0].table_id, mine[0].your_seat), unasked=True)

    def with_person(self, then: Callable[[Person], None]) -> None:
        """Call ``then`` with who the player is at the hub's tables: ``person`` (or, without
        one, an identity of this app alone) under their display name, which is asked for
        first if they never chose one (nothing happens if they cancel)."""
        from casino_tui.table.hub import Person as _Person

        from .screens.displayname import with_display_name

        given = self.person
        if given is not None and given.name and not self.settings.display_name:
            then(given)
            return

        def named(name: str) -> None:
            self.person = _Person(given.id if given is not None else "local", name)
            then(self.person)

        with_display_name(self, named)

    @property
    def offers_tables(self) -> bool:
        """Whether the title offers Tables: the server's tables are reached, or being
        reached."""
        return self.hub is not None or self.reaching_tables

    def refresh_title(self, look: bool = False) -> None:
        """Show the title screen's menu again, if the title is open (``look``: as
        :meth:`TitleScreen.refresh_menu`)."""
        from .screens.title import TitleScreen

        for screen in self.screen_stack:
            if isinstance(screen, TitleScreen):
                screen.refresh_menu(look=look)

    def show_tables(self, join: str | None = None) -> None:
        """The list of the hub's tables; with ``join``, joining the table of that code at
        once (``ssh HOST join CODE``)."""
        hub = self.hub
        if hub is None:
            if self.reaching_tables:
                self.notify("Still reaching the server's tables: try again in a moment.",
                            title="Tables", timeout=5, markup=False)
            return
        from .screens.tables import TablesScreen

        def listed(person: Person) -> None:
            self.push_screen(TablesScreen(hub, person, join=join,
                                          refresh_every=self.tables_refresh))

        self.with_person(listed)

    def show_web_link(self) -> None:
        """A one-time link to play in a web browser (on a server with a web front end)."""
        links = self.web_links
        if links is None:
            return
        from casino_tui.stats.daily import utc_now

        from .screens.weblink import WebLinkScreen

        self.push_screen(WebLinkScreen(links, lambda: utc_now(self.clock)))

    # ------------------------------------------------------------------ navigation
    def action_help(self) -> None:
        from .screens.help import HelpScreen, Sections

        screen = self.screen
        if isinstance(screen, HelpScreen) or self.too_small:
            return
        sections: Sections = getattr(screen, "help_sections", lambda: [])()
        self.push_screen(HelpScreen(sections))

    def show_rules(self, rules: Rules | None, num_players: int | None) -> None:
        from casino_tui.engine import Rules as _Rules

        from .screens.rules import RulesScreen

        browse = rules is None
        if rules is None:
            preset = self.start_config.preset if self.start_config else "classic"
            rules = _Rules.preset(preset)
        self.push_screen(RulesScreen(rules, self.painter, num_players, browse=browse))

    def show_settings(self) -> None:
        from .screens.settings import SettingsScreen

        def done(result: Settings | None) -> None:
            if result is not None:
                self.apply_settings(result)

        themes = sorted(self.available_themes)
        self.push_screen(SettingsScreen(self.settings, themes, self.force_ascii,
                                        display_name=self.tables), done)

    def show_setup(self, config: GameConfig | None = None) -> None:
        from casino_tui.table import GameConfig as _GameConfig

        from .screens.setup import SetupScreen

        levels = self.levels()
        cfg = config or self.start_config or _GameConfig()
        self.push_screen(SetupScreen(cfg, levels), self._setup_done)

    def levels(self) -> tuple[str, ...]:
        from casino_tui.ai import LEVELS

        return tuple(LEVELS)

    def _setup_done(self, config: GameConfig | None) -> None:
        if config is not None:
            self.start_config = self._without_seed(config)  # the next game: a new deal
            self.start_game(config, None)

    @staticmethod
    def _without_seed(config: GameConfig | None) -> GameConfig | None:
        """The same settings (preset, players, names, target) for a game with a new deal."""
        return None if config is None else replace(config, seed=None)

    def start_game(self, config: GameConfig | None, state: State | None, *,
                   loaded: LoadedGame | None = None) -> None:
        """Go to the table: a new game (``state`` None), a set-up position (tests) or a
        loaded game (``loaded``, whose slot, None when read-only, receives the autosaves)."""
        from casino_tui.engine.notation import format_position
        from casino_tui.table import GameConfig as _GameConfig
        from casino_tui.table import save_seats

        from .screens.game import GameScreen
        from .session import GameSession

        if self.too_small:  # start when the terminal is large enough
            self._pending_start = (config, state, loaded)
            return
        cfg = config or _GameConfig()
        # a set-up position (tests): replays (the save, a round's review) start from it rather
        # than from the seed
        start = loaded.start_position if loaded is not None else (
            format_position(state) if state is not None and not state.history else None)
        session = GameSession(cfg, state, resumed=loaded is not None, start_position=start)
        slot: SaveSlot | None
        if loaded is not None:
            slot = loaded.slot
            session.undo_last = loaded.undo_last  # the log says where the latest undo was
            session.rebuild_log(self.painter, loaded.start_position)
            session.add_note("Continued from the saved game"
                             + (" (read-only)" if slot is None else ""))
        else:
            slot = self.store.new_game(save_seats(cfg, session.num_players),
                                       start_position=start)
        self.push_screen(GameScreen(session, self.chooser(), self.store, slot))

    # ------------------------------------------------------------------ tables
    def open_table(self, choice: TableChoice, unasked: bool = False) -> None:
        """Go to the game at a hub's table: ``choice.seat`` is the player's seat, None when
        they watch. Takes the table's view for them, follows its events and shows its game
        screen (a refusal, such as a table that closed, is told). ``unasked``: the player did
        not ask for it just now (their keys of its first moment were typed for the screen
        before, and are dropped: ``TableGameScreen.TYPEAHEAD_GRACE``)."""
        hub, person = self.hub, self.person
        if hub is None or person is None:
            self.notify("There are no tables to play at here.", severity="warning",
                        markup=False)
            return
        in_background(self, "open-table", self._open_table, hub, person, choice, unasked,
                      exclusive=True)

    async def _open_table(self, hub: TableHub, person: Person, choice: TableChoice,
                          unasked: bool = False) -> None:
        from casino_tui.table.client import SeatClient
        from casino_tui.table.hub import HubError

        from .netsession import NetSession
        from .screens.tablegame import TableGameScreen
        from .screens.tables import TablesScreen

        client = SeatClient(hub, choice.table_id, person, watch=choice.seat is None)
        try:
            update = await client.open()
            seat = client.seat
            if seat is not None:
                info = client.view.seats[seat]
                if info.away_since is not None or info.stand_in:  # back at the seat
                    await hub.come_back(choice.table_id, person)
        except HubError as err:
            client.close()
            self.notify(err.reason, title="Table", severity="error", timeout=10, markup=False)
            return
        session = NetSession(client, clock=self.table_clock)
        session.take(update, self.painter)
        if gc.get_freeze_count():
            # A game forked from a warm server: the lobby's screens are gone, their widgets
            # garbage that refer to each other, which only the collector frees. Freed now, the
            # table's screen takes their memory instead of new pages. (Cheap there: the fork
            # server's objects are frozen, so it walks only what this game made.)
            gc.collect()
        game = TableGameScreen(session, self.chooser(), unasked=unasked)
        if isinstance(self.screen, TablesScreen):
            # in place of the list of tables, which is never seen again under the game
            # (leaving the table, or its game's end, goes back to a new list over the title)
            # and held its widgets, their caches and its timer for the whole game
            self.switch_screen(game)
        else:
            self.push_screen(game)

    def record_table_game(self, client: SeatClient, view: TableView) -> None:
        """A game at a hub's table ended at the player's seat (``view``: their view of its
        end): add it to their ledger, built from that view and the game's events, which hold
        no hidden card (a game is recorded once). A problem is shown, never fatal."""
        in_background(self, "table-record", self._record_table_game, client, view)

    async def _record_table_game(self, client: SeatClient, view: TableView) -> None:
        from casino_tui.engine import Phase
        from casino_tui.stats import record_from_play
        from casino_tui.stats.daily import utc_now
        from casino_tui.table.hub import HubError

        if view.seat is None or view.phase != Phase.GAME_OVER or not view.game:
            return
        try:
            seats, summaries = await client.played_game(view)
        except HubError as err:
            self.notify(f"This game could not be added to your statistics: {err.reason}",
                        severity="warning", timeout=10, markup=False)
            return
        record = record_from_play(
            preset=view.rules.preset_name, players=view.num_players, sides=view.sides,
            seats=seats, summaries=summaries, round_no=view.round_no, scores=view.scores,
            sweeps=view.sweeps, winner=view.winner, game=f"table-{view.game}",
            ended=utc_now(self.clock), seat=view.seat)
        self._add_to_ledger(record)

    def game_over_choice(self, choice: GameOverChoice | None, *, tables: bool = False) -> None:
        """After game over: quit, a new game, or back (to the list of tables after a game at
        a table, with ``tables``)."""
        if choice == "quit":
            self.close_games()
            self.shutdown_chooser()
            self.exit()
            return
        if tables:
            self.back_to_tables()
            return
        self.back_to_title()
        if choice == "new":  # the same settings, but never the same cards again
            self.show_setup(self._without_seed(self.start_config))

    def back_to_title(self) -> None:
        """Close every screen above the title screen, at once (a new screen may follow)."""
        self.close_games()  # before the title screen lists the saves
        while len(self.screen_stack) > 1:
            self.pop_screen()

    def back_to_tables(self) -> None:
        """Leaving a table: back to the list of tables (over the title screen), or to the
        title screen when there are no tables."""
        self.back_to_title()
        if self.hub is not None:
            self.show_tables()

    # ------------------------------------------------------------------ Continue at a table
    def refresh_table_to_continue(self) -> None:
        """Look for a game in progress at a table where the player has a seat (Continue goes
        there when there is no solo save); the title screen's menu follows."""
        if self.hub is not None and self.person is not None:
            in_background(self, "table-continue", self._find_table_to_continue, self.hub,
                          self.person, exclusive=True)

    async def _find_table_to_continue(self, hub: TableHub, person: Person) -> None:
        from casino_tui.table.hub import HubError

        try:
            tables = await hub.list_tables(person)
        except (HubError, OSError):
            return
        mine = [t for t in tables if t.your_seat is not None and t.started and not t.finished]
        found = mine[0] if mine else None
        if found != self.table_to_continue:
            self.table_to_continue = found
            for screen in self.screen_stack:
                if isinstance(screen, TitleScreen):
                    screen.refresh_menu(look=False)

    def table_continue_label(self) -> str | None:
        """Continue's note for the table game in progress at the player's seat, if any."""
        t = self.table_to_continue
        return None if t is None else f"table {t.code} · round {t.round_no}"

    # ------------------------------------------------------------------ statistics, daily deal
    @property
    def data_dir(self) -> Path:
        """The player's data directory (the saved games are in its ``games`` folder)."""
        return self.store.root.parent

    def _add_to_ledger(self, record: GameRecord) -> None:
        """Append ``record`` to the player's ledger and keep its figures up to date (the
        Statistics screen opens quickly); a problem or damage found is shown, never fatal."""
        from casino_tui.stats import Ledger, LedgerError
        from casino_tui.stats.cache import ledger_figures

        try:
            Ledger(self.data_dir).record(record, self.store)
        except LedgerError as err:
            self.notify(str(err), severity="warning", timeout=10, markup=False)
            return
        found = ledger_figures(self.data_dir, self.store)
        if found.report:
            self.notify(found.report, severity="warning", timeout=10, markup=False)

    def record_game(self, slot: SaveSlot | None, state: State) -> None:
        """A game ended: add it to the player's ledger (once; a game opened read-only is
        recorded by the window that plays it). A problem is shown, never fatal."""
        from casino_tui.stats import record_from_game
        from casino_tui.stats.daily import utc_now

        if slot is None or not state.is_game_over or len(slot.seats) != state.num_players:
            return
        record = record_from_game(state, slot.seats, game=slot.game_id,
                                  ended=utc_now(self.clock), created=slot.created,
                                  undo=slot.undo)
        self._add_to_ledger(record)

    def show_stats(self) -> None:
        from casino_tui.stats.cache import ledger_figures

        from .screens.stats import StatsScreen

        found = ledger_figures(self.data_dir, self.store)
        self.push_screen(StatsScreen(found.figures, problem=found.report,
                                     ascii=self.force_ascii))

    def show_daily(self) -> None:
        """The daily deal's screen: the player's result of the day and, under a server, every
        player's; Enter there plays the deal."""
        import os

        from casino_tui.stats import Ledger
        from casino_tui.stats.daily import (
            daily_ranking,
            daily_result,
            players_dir_from_environment,
            utc_today,
        )

        from .screens.daily import DailyScreen

        day = utc_today(self.clock)
        found = Ledger(self.data_dir).load(self.store)
        players = players_dir_from_environment(os.environ)
        rows = daily_ranking(players, day, me=self.data_dir) if players is not None else None
        problem = found.report() if found.damaged else None

        def chosen(play: bool | None) -> None:
            if play:
                self.play_daily()

        self.push_screen(DailyScreen(day, daily_result(found.records, day), rows,
                                     problem=problem), chosen)

    def play_daily(self) -> None:
        """Start the day's deal: classic, a person against Hard, the date's seed."""
        from casino_tui.stats import DAILY_LEVEL, DAILY_PRESET, daily_seed
        from casino_tui.stats.daily import utc_today
        from casino_tui.table import GameConfig as _GameConfig
        from casino_tui.table import default_seats

        config = _GameConfig(preset=DAILY_PRESET, players=2,
                             seats=default_seats(2, 1, DAILY_LEVEL),
                             seed=daily_seed(utc_today(self.clock)))
        self.start_game(config, None)
