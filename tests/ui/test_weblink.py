"""The title screen's Browser entry (issue 16): offered only when the server has a web front
end; it shows a one-time link as plain text with how long it is valid, a new one on ``n``, and
the server's refusal when it makes none."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from textual.pilot import Pilot

from casino_tui.app.app import CasinoApp
from casino_tui.app.screens.help import HelpScreen
from casino_tui.app.screens.title import TitleScreen
from casino_tui.app.screens.weblink import WebLinkScreen, how_long
from casino_tui.table.hub import HubError
from casino_tui.table.weblink import WebLink

from .conftest import asynctest, settle
from .lobby_support import lobby_app, make_hub
from .test_lobby import screen_text, shows

NOON = datetime(2026, 11, 24, 23, 40, 12, tzinfo=UTC)
TOKEN = "Xy3_-q9Zr7LmN0pQ2sT4uV6wY8aB1cD3eF5gH7jK9mP"


class Links:
    """Links as the server mints them: a new token each time (the first is :data:`TOKEN`);
    ``refuse``: the server's refusal instead."""

    def __init__(self, refuse: str | None = None) -> None:
        self.asked = 0
        self.refuse = refuse

    async def web_link(self) -> WebLink:
        self.asked += 1
        if self.refuse is not None:
            raise HubError(self.refuse)
        token = TOKEN if self.asked == 1 else f"second-{TOKEN[7:]}"
        return WebLink(f"https://games.example.org/link/{token}", 300.0)


def web_app(links: Any = None) -> CasinoApp:
    return lobby_app(make_hub(), web_links=links if links is not None else Links(),
                     clock=lambda: NOON)


def test_how_long() -> None:
    assert [how_long(s) for s in (300, 60, 90, 1, 7200)] == [
        "5 minutes", "1 minute", "90 seconds", "1 second", "120 minutes"]


@asynctest
async def test_the_entry_is_offered_only_with_a_web_front_end() -> None:
    app = lobby_app(make_hub())
    async with app.run_test(size=(80, 24)) as pilot:
        assert "Browser" not in screen_text(app)
        await pilot.press("b")
        assert isinstance(app.screen, TitleScreen)
    links = Links()
    app = web_app(links)
    async with app.run_test(size=(80, 24)) as pilot:
        assert shows(app, "Browser") and shows(app, "a link to play in a browser")
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert shows(app, "a one-time link to play in a web browser")
        await pilot.press("escape", "b")
        await pilot.pause()
        assert isinstance(app.screen, WebLinkScreen) and links.asked == 1
        assert shows(app, f"https://games.example.org/link/{TOKEN}")
        assert shows(app, "It works once, for 5 minutes (until 23:45 UTC)")
        await pilot.press("n")
        await pilot.pause()
        assert links.asked == 2 and shows(app, "https://games.example.org/link/second-")
        assert not shows(app, TOKEN)
        await pilot.press("enter")
        assert isinstance(app.screen, TitleScreen)


@asynctest
async def test_the_link_is_plain_text_and_a_refusal_is_told() -> None:
    class Odd(Links):
        async def web_link(self) -> WebLink:
            return WebLink("https://h/link/[bold]x[/bold]", 60.0)

    app = web_app(Odd())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("b")
        await pilot.pause()
        assert shows(app, "https://h/link/[bold]x[/bold]")
        assert shows(app, "for 1 minute")
    app = web_app(Links(refuse="this server has no web front end"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("b")
        await pilot.pause()
        assert shows(app, "No link: this server has no web front end.")
        assert not shows(app, "It works once")


def run(snap_compare: Any, app: CasinoApp, *keys: str) -> bool:
    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        await pilot.pause()

    return bool(snap_compare(app, terminal_size=(80, 24), run_before=before))


def test_title_with_the_browser_entry(snap_compare: Any) -> None:
    assert run(snap_compare, web_app())


def test_the_link_screen(snap_compare: Any) -> None:
    assert run(snap_compare, web_app(), "b")
