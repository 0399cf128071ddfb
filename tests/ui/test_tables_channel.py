"""The app under a server with tables: it reaches the hub over the table channel its
environment names (a real Unix socket and a HubService here), offers Tables, and takes a player
who holds a seat at a game in progress back to it."""

from __future__ import annotations

from pathlib import Path

from table_support import SeededThinker
from textual.pilot import Pilot

from casino_tui.app.app import CasinoApp
from casino_tui.app.screens.tablegame import TableGameScreen
from casino_tui.app.screens.title import TitleScreen
from casino_tui.settings import Settings
from casino_tui.table import GameConfig, SeatConfig
from casino_tui.table.hub import LocalHub, Person
from casino_tui.table.remote import RemoteHub
from casino_tui.table.service import HubService
from casino_tui.table.wire import Identity, new_secret, session_environment, socket_path

from .conftest import asynctest, make_app

ANN = Identity("player-ann", "SHA256:ann", 1)
BOB = Person("player-bob", "Bob")


def two_people() -> GameConfig:
    return GameConfig(preset="classic", players=2,
                      seats=(SeatConfig("South", True), SeatConfig("North", True)), seed=13)


async def until(pilot: Pilot[None], check: object, limit: int = 400) -> None:
    for _ in range(limit):
        await pilot.pause(0.01)
        if check():  # type: ignore[operator]
            return
    raise AssertionError("the app did not get there")


def served_app(path: Path, secret: str) -> CasinoApp:
    app = make_app(tables_link=session_environment(path, secret),
                   settings=Settings(speed="instant", display_name="Ann"))
    app.tables_refresh = None
    return app


async def serving(hub: LocalHub, tmp_path: Path) -> tuple[HubService, CasinoApp]:
    """``hub`` served on a table channel of its own (started), and Ann's app reaching it as a
    served game does."""
    service = HubService(hub)
    path = socket_path(tmp_path)
    await service.start(path)
    secret = new_secret()
    service.register(secret, ANN)
    return service, served_app(path, secret)


def title_text(app: CasinoApp) -> str:
    return " ".join(str(o.prompt) for o in app.screen.query_one("OptionList").options)  # type: ignore[attr-defined]


@asynctest
async def test_the_app_reaches_the_servers_tables_from_its_environment(tmp_path: Path) -> None:
    hub = LocalHub(SeededThinker())
    service, app = await serving(hub, tmp_path)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.hub is not None)
            assert isinstance(app.hub, RemoteHub)
            assert app.person is not None and app.person.id == ANN.player
            await until(pilot, lambda: "Tables" in title_text(app))
            assert isinstance(app.screen, TitleScreen)
            await app.hub.close()
    finally:
        await service.close()
        hub.shutdown()


@asynctest
async def test_a_seat_at_a_game_in_progress_is_taken_back_at_once(tmp_path: Path) -> None:
    hub = LocalHub(SeededThinker())
    ann = Person(ANN.player, "Ann")
    info = await hub.create_table(two_people(), ann)
    await hub.join(info.code, BOB)
    await hub.take_seat(info.table_id, BOB)
    await hub.start(info.table_id, ann)
    await hub.mark_away(info.table_id, ann)  # Ann dropped (or the server restarted)
    service, app = await serving(hub, tmp_path)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, TableGameScreen))
            screen = app.screen
            assert isinstance(screen, TableGameScreen)
            view = await hub.snapshot(info.table_id, ann)
            assert screen.session.client.view.hand == view.hand and view.seat == 0
            assert view.seats[0].away_since is None  # back at the seat
            assert app.hub is not None
            await app.hub.close()  # type: ignore[attr-defined]
    finally:
        await service.close()
        hub.shutdown()


@asynctest
async def test_a_channel_that_cannot_be_used_is_told_and_solo_play_goes_on(
        tmp_path: Path) -> None:
    app = served_app(tmp_path / "no.sock", new_secret())
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await until(pilot, lambda: bool(app._notifications))
        text = " ".join(str(n.message) for n in app._notifications)
        assert "cannot be reached" in text and "Solo games work as usual" in text
        assert app.hub is None and "Tables" not in title_text(app)
        await pilot.press("n")
        await pilot.pause()
        assert not isinstance(app.screen, TitleScreen)  # the new game's setup
