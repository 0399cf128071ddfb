"""The title screen: New game, Tables (on a server with tables), Browser (on a server with a web
front end), Continue, Load, Daily deal, Statistics, Rules, Settings, Quit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ..keylinks import key_link
from .firstshow import breakpoint_classes, drop_undrawn

if TYPE_CHECKING:  # pragma: no cover
    from ..app import CasinoApp

LOGO = (
    "╔═╗╔═╗╔═╗╔═╗╦╔╗╔╔═╗",
    "║  ╠═╣╚═╗╚═╗║║║║║ ║",
    "╚═╝╩ ╩╚═╝╚═╝╩╝╚╝╚═╝",
)
LOGO_ASCII = (
    " ___   _   ___ ___ ___ _  _  ___ ",
    "/ __| /_\\ / __/ __|_ _| \\| |/ _ \\",
    "\\__ \\/ _ \\\\__ \\__ \\| || .` | (_) |",
    "|___/_/ \\_\\___/___/___|_|\\_|\\___/",
)


# The menu's notes fit on their line: the menu box is 52 wide (styles/title.tcss), less its
# border and padding (4) and the entry's label and key (16).
NOTE_ROOM = 52 - 4 - 16


def fit_note(note: str, room: int) -> str:
    """``note`` cut to ``room`` cells with an ellipsis; a saved game's name is cut before its
    round (``A very long na… · round 3``) so the round always shows."""
    if len(note) <= room:
        return note
    head, sep, tail = note.rpartition(" · ")
    if sep and len(tail) + len(sep) + 2 <= room:
        return head[:room - len(sep) - len(tail) - 1].rstrip() + "…" + sep + tail
    return note[:room - 1].rstrip() + "…"


def _entries(options: Sequence[Option]) -> list[tuple[str | None, object, bool]]:
    return [(o.id, o.prompt, o.disabled) for o in options]


class TitleScreen(Screen[None]):
    """The menu; each entry also has a letter key."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "menu('new')", "New game", show=False, id="title.new"),
        Binding("t", "menu('tables')", "Tables", show=False, id="title.tables"),
        Binding("b", "menu('browser')", "Browser", show=False, id="title.browser"),
        Binding("c", "menu('continue')", "Continue", show=False, id="title.continue"),
        Binding("l", "menu('load')", "Load", show=False, id="title.load"),
        Binding("d", "menu('daily')", "Daily deal", show=False, id="title.daily"),
        Binding("i", "menu('stats')", "Statistics", show=False, id="title.stats"),
        Binding("r", "menu('rules')", "Rules", show=False, id="title.rules"),
        Binding("s", "menu('settings')", "Settings", show=False, id="title.settings"),
        Binding("q,escape", "menu('quit')", "Quit", show=False, id="title.quit"),
    ]
    HELP_TITLE = "Title screen"

    @property
    def casino(self) -> CasinoApp:
        return self.app  # type: ignore[return-value]

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        app = self.casino
        tables = [("t", "tables: play with other people on this server")] \
            if app.offers_tables else []
        browser = [("b", "a one-time link to play in a web browser")] \
            if app.web_links is not None else []
        return [(self.HELP_TITLE, [
            ("↑↓ Enter", "choose an entry"),
            ("n", "new game"), *tables, *browser,
            ("c", "continue the saved game (when there is one)" if app.hub is None else
             "continue the saved game, or the game at your seat at a table"),
            ("l", "load a saved game (when there are saves)"),
            ("d", "the daily deal: the same cards for everyone today"),
            ("i", "statistics of your finished games"),
            ("r", "rules of every preset"), ("s", "settings"), ("q / Esc", "quit"),
        ])]

    def compose(self) -> ComposeResult:
        self._set_breakpoints(self.app.size)  # before its widgets are styled: styled once
        # in the middle of the screen, one under the other (title.tcss)
        yield Static(id="title-logo")
        yield Static("the classic fishing card game", id="title-tagline")
        yield OptionList(id="title-menu")
        yield Static("↑↓ choose · " + key_link("Enter select", "enter") + " · "
                     + key_link("? help", "question_mark"), id="title-keys")

    _logo: Text | None = None  # the logo shown
    _shown = False  # shown once already

    def on_mount(self) -> None:
        self.refresh_menu(look=False)  # (it looks when shown, next)

    def on_resize(self, event: events.Resize) -> None:
        """A resize to the size the screen is already laid out at changes nothing, and is
        dropped: Textual lays a screen out and draws all of it for every resize, and it sends
        the first screen two such resizes after its first frame (the app's size as it starts,
        and the screen's own region once laid out). Any other resize goes on to Textual."""
        if event.size == self.region.size and self.is_current:  # as laid out now
            event.prevent_default()
            self._set_breakpoints(event.size)

    def _set_breakpoints(self, size: Size) -> None:
        """The breakpoint classes (``-narrow``, ``-wide``: ``HORIZONTAL_BREAKPOINTS``) of
        ``size``, as Textual sets them on a screen at each resize: here before the first
        frame, so that it is drawn with them."""
        self.update_classes(breakpoint_classes(self, size), animate=False)

    def on_screen_resume(self) -> None:
        if self.app.screen is not self:
            # Resumed under a screen pushed over it before this ran (the New game screen's
            # Enter dismisses it, which resumes this, and pushes the table): nothing of it
            # shows, so its menu is refreshed when it is shown. Textual's own handler, next,
            # lays it out, so that showing is not its first frame.
            self._shown = True
            return
        if not self._shown:
            # (after Textual's own handler, which runs after this one)
            self.call_next(self._keep_first_frame)
        # The first time, under a server, the app looks once it has reached the tables
        self.refresh_menu(look=self._shown or not self.casino.tables_from_link)
        self._shown = True

    def _compositor_refresh(self) -> None:
        """Under a screen with an opaque background (the table, and every full screen)
        nothing of this one shows, yet Textual has the screen on top repaint all of itself
        for what changed here (a screen right under the top one counts as seen through it):
        the table's first frame drawn whole a second time when this screen's update came
        after it. What changed here is dropped instead: Textual draws all of this screen
        again when it is shown (its resume refreshes it). Under a dialog it shows through,
        it is drawn as from Textual."""
        top = self.app.screen
        if top is not self and top.styles.background.a == 1:
            drop_undrawn(self)
            return
        super()._compositor_refresh()

    def _keep_first_frame(self) -> None:
        """Textual shows a screen for the first time by laying it out and drawing all of it
        (``Screen._on_screen_resume``), and then asks for all of it to be drawn again in the
        next refresh: the same frame twice, 6 KB more for every login at 100x30. Drop that
        second drawing of the whole screen; what changed since the first frame (the menu's
        layout once it knows its lines) is still drawn, and whatever asks for a repaint later
        gets it."""
        if self.is_current:
            self._repaint_required = False

    def refresh_menu(self, look: bool = True) -> None:
        """Show the menu again; ``look``: also ask the server's tables whether the player has
        a game in progress at one (Continue goes there when there is no solo save)."""
        app = self.casino
        if look and app.hub is not None:
            app.refresh_table_to_continue()
        symbols = app.painter.symbols
        logo = Text("\n".join(LOGO if symbols else LOGO_ASCII), style="bold")
        suits = Text("♠ ♥ ♦ ♣" if symbols else "S  H  D  C", style="bold")
        try:
            title_logo = self.query_one("#title-logo", Static)
        except NoMatches:  # not composed yet, or being taken down (a quit as the app starts)
            return
        drawn = Text("\n").join([logo, Text(""), suits])
        if drawn != self._logo:  # (Textual lays the screen out again at each update)
            self._logo = drawn
            title_logo.update(drawn)
        saved = app.saved_game_label()
        note = saved or app.table_continue_label()
        can_load = app.can_load()
        menu = self.query_one("#title-menu", OptionList)
        def entry(label: str, key: str, note: str = "") -> Text:
            t = Text(f"{label:<12}", style="bold")
            t.append(key, style="underline")
            if note:
                t.append(f"   {fit_note(note, NOTE_ROOM)}", style="italic")
            return t

        tables = [Option(entry("Tables", "t", "play with people here"), id="tables")] \
            if app.offers_tables else []
        browser = [Option(entry("Browser", "b", "a link to play in a browser"),
                          id="browser")] if app.web_links is not None else []
        options = [
            Option(entry("New game", "n"), id="new"),
            *tables,
            *browser,
            Option(entry("Continue", "c", note or app.no_continue_note()), id="continue",
                   disabled=note is None),
            Option(entry("Load game", "l", "" if can_load else "no saves yet"), id="load",
                   disabled=not can_load),
            Option(entry("Daily deal", "d"), id="daily"),
            Option(entry("Statistics", "i"), id="stats"),
            Option(entry("Rules", "r"), id="rules"),
            Option(entry("Settings", "s"), id="settings"),
            Option(entry("Quit", "q"), id="quit"),
        ]
        if _entries(options) != _entries(menu.options):  # a menu shown again lays it out again
            highlighted = menu.highlighted
            menu.clear_options()
            menu.add_options(options)
            menu.highlighted = highlighted if highlighted is not None else 0
        menu.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_menu(event.option.id or "")

    def action_menu(self, what: str) -> None:
        app = self.casino
        if what == "new":
            app.show_setup()
        elif what == "tables":
            app.show_tables()
        elif what == "browser":
            app.show_web_link()
        elif what == "continue":
            app.continue_latest()
        elif what == "load":
            if app.can_load():
                app.show_load()
            else:
                self.notify("There are no saved games to load.", severity="warning")
        elif what == "daily":
            app.show_daily()
        elif what == "stats":
            app.show_stats()
        elif what == "rules":
            app.show_rules(None, None)
        elif what == "settings":
            app.show_settings()
        elif what == "quit":
            app.exit()
