"""Play in a browser: a one-time link from the server (``casino-tui serve --web-port``) that
signs a web browser in as this player, shown as plain text with how long it is valid."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import PurePath
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from casino_tui.table.weblink import WebLink, WebLinks

from ..background import in_background
from ..keylinks import key_link
from ..styles import css
from .waiting import HUB_ERRORS, refusal, why


def how_long(seconds: float) -> str:
    """``5 minutes``, ``1 minute``, ``90 seconds``."""
    whole = round(seconds)
    if whole >= 60 and whole % 60 == 0:
        minutes = whole // 60
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{whole} second{'s' if whole != 1 else ''}"


class WebLinkScreen(ModalScreen[None]):
    """Asks ``links`` for a new link at once and shows it; ``n`` asks for another, ``c`` copies
    it (where the terminal lets a program set the clipboard), Enter or Esc closes."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("dialogs")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter", "close", "Close", id="weblink.close"),
        Binding("n", "new_link", "New link", id="weblink.new"),
        Binding("c", "copy", "Copy", id="weblink.copy"),
    ]
    HELP_TITLE = "Play in a browser"

    def __init__(self, links: WebLinks, now: Callable[[], datetime]) -> None:
        super().__init__()
        self.links = links
        self.now = now
        self.link: WebLink | None = None

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return [(self.HELP_TITLE, [("n", "a new link (the one shown stops working)"),
                                   ("c", "copy the link, if your terminal allows it"),
                                   ("Enter / Esc", "close")])]

    def compose(self) -> ComposeResult:
        with Vertical(id="weblink-box", classes="dialog wide"):
            yield Static("Play in a browser", classes="dialog-title")
            yield Static("Open this link in a web browser to play there as yourself: the "
                         "same name, saved games, statistics and tables.", markup=False)
            yield Static("Asking the server for a link…", id="weblink-url", markup=False)
            yield Static("", id="weblink-when", markup=False)
            yield Static("When the game in the browser starts, this one ends: your game goes "
                         "on there. Keep the link to yourself: whoever opens it first plays "
                         "as you.", id="weblink-what", markup=False)
            yield Static(key_link("[b]Enter[/b] close", "enter") + "     "
                         + key_link("[b]n[/b] a new link", "n") + "     "
                         + key_link("[b]c[/b] copy it", "c"), classes="dialog-keys")

    def on_mount(self) -> None:
        self.action_new_link()

    def action_new_link(self) -> None:
        in_background(self, "weblink", self._ask, exclusive=True)

    async def _ask(self) -> None:
        try:
            link = await self.links.web_link()
        except HUB_ERRORS as err:
            self.link = None
            self.query_one("#weblink-url", Static).update(refusal(f"no link: {why(err)}"))
            self.query_one("#weblink-when", Static).update("")
            return
        self.link = link
        until = (self.now() + timedelta(seconds=link.expires_in)).strftime("%H:%M UTC")
        self.query_one("#weblink-url", Static).update(Text(link.url, style="bold"))
        self.query_one("#weblink-when", Static).update(
            f"It works once, for {how_long(link.expires_in)} (until {until}). Press n for "
            "a new one.")

    def action_copy(self) -> None:
        if self.link is None:
            return
        self.app.copy_to_clipboard(self.link.url)
        self.notify("The link was sent to your terminal's clipboard (if it accepts that; "
                    "else select it with the mouse, Shift+drag in most terminals).",
                    timeout=6, markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
