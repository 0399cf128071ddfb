"""The lobby of a server's tables (issue 12), against an in-process hub: the list of tables,
creating one, a table waiting for its players (filling live), starting it, joining by code (from
the list and from the shell), watching, leaving, and names shown literally."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input

from casino_tui.app.app import CasinoApp
from casino_tui.app.screens.createtable import CreateTableScreen
from casino_tui.app.screens.help import HelpScreen
from casino_tui.app.screens.joincode import JoinCodeScreen
from casino_tui.app.screens.tables import TablesScreen
from casino_tui.app.screens.title import TitleScreen
from casino_tui.app.screens.waiting import TableChoice, WaitingScreen
from casino_tui.table.hub import LocalHub, Person, TableInfo

from .conftest import asynctest, make_app
from .lobby_support import ANN, BOB, EVE, lobby_app, make_hub, people
from .test_literal_text import BAD, CLICK, CLOSE, screen_text


def squeeze(text: str) -> str:
    return re.sub(r"[\s│▌▐▎▊]+", "", text)


def shows(app: CasinoApp, *texts: str) -> bool:
    """Each of ``texts`` is on the screen or in a notification (wrapped or not)."""
    notices = " ".join(n.message for n in app._notifications)
    seen = squeeze(screen_text(app)) + "\n" + squeeze(notices)
    return all(squeeze(t) in seen for t in texts)


class Opened(list[TableChoice]):
    """The tables the app went to, and for each whether the player asked for it just then
    (``unasked``: the creator started the game they waited for)."""

    def __init__(self) -> None:
        super().__init__()
        self.unasked: list[bool] = []

    def open_table(self, choice: TableChoice, unasked: bool = False) -> None:
        self.append(choice)
        self.unasked.append(unasked)


def opened(app: CasinoApp) -> Opened:
    """Record the tables the app goes to (instead of its notice)."""
    choices = Opened()
    app.open_table = choices.open_table  # type: ignore[method-assign]
    return choices


async def until(pilot: Pilot[None], check: object, limit: int = 50) -> None:
    """Let the app run until ``check()`` holds."""
    for _ in range(limit):
        await pilot.pause()
        if check():  # type: ignore[operator]
            return
    raise AssertionError("the app never got there")


async def to_tables(pilot: Pilot[None]) -> TablesScreen:
    await pilot.press("t")
    await until(pilot, lambda: isinstance(pilot.app.screen, TablesScreen))
    screen = pilot.app.screen
    assert isinstance(screen, TablesScreen)
    return screen


def waiting(app: CasinoApp) -> WaitingScreen:
    assert isinstance(app.screen, WaitingScreen), app.screen
    return app.screen


async def to_a_started_table(pilot: Pilot[None], hub: LocalHub) -> str:
    """From the title: Ann makes a table of two, Bob sits down through the hub, Ann starts it,
    until its game screen shows; the table's id."""
    from casino_tui.app.screens.tablegame import TableGameScreen

    app = pilot.app
    assert isinstance(app, CasinoApp)
    await to_tables(pilot)
    await pilot.press("n")
    await pilot.pause()
    await pilot.press("enter")
    waiting(app)
    table = (await hub.find("KAMIRO")).table_id
    await hub.take_seat(table, BOB)
    await until(pilot, lambda: shows(app, "Bob"))
    await pilot.press("s")
    await until(pilot, lambda: isinstance(app.screen, TableGameScreen), limit=200)
    return table


# ---------------------------------------------------------------------- the title screen
@asynctest
async def test_the_title_offers_tables_only_with_a_hub() -> None:
    async with make_app().run_test(size=(80, 24), notifications=True) as pilot:
        assert "Tables" not in screen_text(pilot.app)  # type: ignore[arg-type]
        await pilot.press("t")
        assert isinstance(pilot.app.screen, TitleScreen)
    app = lobby_app(make_hub())
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        assert shows(app, "Tables") and shows(app, "play with people here")
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert shows(app, "play with other people on this server")
        await pilot.press("escape")
        screen = await to_tables(pilot)
        assert shows(app, "No tables yet") and screen.tables == []
        await pilot.press("question_mark")
        assert shows(app, "join a table by its code")
        await pilot.press("escape", "escape")
        assert isinstance(app.screen, TitleScreen)


@asynctest
async def test_a_hub_makes_the_settings_offer_the_display_name() -> None:
    assert lobby_app(make_hub()).tables and not make_app().tables
    assert make_app(tables=True).tables


@asynctest
async def test_without_a_display_name_it_is_asked_before_the_tables() -> None:
    from casino_tui.app.screens.displayname import DisplayNameScreen
    from casino_tui.settings import Settings

    hub = make_hub()
    app = make_app(hub=hub, settings=Settings(speed="instant"))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.press("t")
        assert isinstance(app.screen, DisplayNameScreen)
        await pilot.press(*"Zoë", "enter")
        screen = await to_tables(pilot)
        assert screen.person.name == "Zoë" and app.settings.display_name == "Zoë"
        assert shows(app, "Zoë")


# ---------------------------------------------------------------------- the list
@asynctest
async def test_the_list_shows_the_public_tables_and_their_seats() -> None:
    hub = make_hub()
    await hub.create_table(people("person", "person", "hard"), BOB)
    secret = await hub.create_table(people("person", "person"), EVE, public=False)
    app = lobby_app(hub)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = await to_tables(pilot)
        assert [t.code for t in screen.tables] == ["KAMIRO"]
        assert not shows(app, secret.code)
        assert shows(app, "KAMIRO") and shows(app, "Standard Cassino · 3 players · to 21")
        assert shows(app, "by Bob") and shows(app, "Bob, open, East (computer · hard)")
        assert shows(app, "waiting · 1 open seat")
        # Eve joins by its code: now it is listed for her, with one watching Bob's table.
        await hub.join("kamiro", EVE)
        await hub.take_seat(secret.table_id, BOB)
        await pilot.press("r")
        await pilot.pause()
        assert shows(app, "1 watching") and not shows(app, secret.code)
        assert [t.code for t in await hub.list_tables(BOB)] == ["KAMIRO", "BODEFU"]


@asynctest
async def test_the_list_refreshes_on_its_timer() -> None:
    hub = make_hub()
    app = lobby_app(hub)
    app.tables_refresh = 0.05
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        screen = await to_tables(pilot)
        assert screen.tables == []
        await hub.create_table(people("person", "person"), BOB)
        for _ in range(100):
            await pilot.pause(0.02)
            if screen.tables:
                break
        assert [t.code for t in screen.tables] == ["KAMIRO"]


@asynctest
async def test_the_list_is_not_refreshed_behind_a_game() -> None:
    """Under a game (or any screen in front of it) the list is not asked for again: at a
    server, every player's list every few seconds is a call to the server and a redraw of the
    whole game screen in front of it."""
    hub = make_hub()
    app = lobby_app(hub)
    app.tables_refresh = 0.05
    asked = [0]
    list_tables = hub.list_tables

    async def counted(person: Person) -> list[TableInfo]:
        asked[0] += 1
        return await list_tables(person)

    hub.list_tables = counted  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await to_tables(pilot)
        await until(pilot, lambda: asked[0] >= 3)  # in front: refreshed on its timer
        app.push_screen(Screen())  # a game in front of it
        await pilot.pause(0.1)
        before = asked[0]
        await pilot.pause(0.4)
        assert asked[0] == before


# ---------------------------------------------------------------------- creating and starting
@asynctest
async def test_create_wait_for_a_second_person_and_start() -> None:
    hub = make_hub()
    app = lobby_app(hub)
    choices = opened(app)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await to_tables(pilot)
        await pilot.press("n")
        assert isinstance(app.screen, CreateTableScreen)
        await pilot.press("enter")  # two players, both people by default
        screen = waiting(app)
        assert screen.seat == 0 and screen.creator
        assert shows(app, "K A M I R O", "ka-mi-ro", "listed publicly")
        assert shows(app, "Ann") and shows(app, "waiting for a person")
        assert shows(app, "computers play the open seats") and shows(app, "Press s to start")
        # Bob joins through the hub: his name appears without a key pressed.
        table = (await hub.find("KAMIRO")).table_id
        assert await hub.take_seat(table, BOB) == 1
        await until(pilot, lambda: shows(app, "Bob"))
        assert shows(app, "Every seat is taken")
        await pilot.press("s")
        await until(pilot, lambda: bool(choices))
        assert choices == [TableChoice(table, 0)]
        assert choices.unasked == [False]  # her own "s": her next keys are for the game
        assert (await hub.find("KAMIRO")).started
        assert isinstance(app.screen, TablesScreen)


@asynctest
async def test_the_creator_may_start_with_open_seats_for_computers() -> None:
    hub = make_hub()
    app = lobby_app(hub)
    choices = opened(app)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await to_tables(pilot)
        await pilot.press("n")
        await pilot.press("down", "right")  # three players
        await pilot.press("enter")
        info = waiting(app).info
        assert info.num_players == 3 and info.open_seats == 2
        assert shows(app, "2 seats are open for people")
        await pilot.press("s")
        await until(pilot, lambda: bool(choices))
        info = await hub.find("KAMIRO")
        assert info.started and [s.kind for s in info.seats] == ["person", "computer",
                                                                 "computer"]
        assert choices == [TableChoice(info.table_id, 0)]


@asynctest
async def test_the_create_form_reads_preset_seats_and_listing() -> None:
    hub = make_hub()
    app = lobby_app(hub)
    async with app.run_test(size=(80, 30), notifications=True) as pilot:
        await to_tables(pilot)
        await pilot.press("n")
        form = app.screen
        assert isinstance(form, CreateTableScreen)
        assert not form.query("#seat-name-0") and not form.query("#setup-seed")
        await pilot.press("down", "right")  # three players
        await pilot.press("down", "down", "left")  # seat 2: computer · hard
        form.query_one("#setup-target", Input).value = "11"
        form.query_one("#create-public").focus()
        await pilot.press("right")  # private
        request = form.build_request()
        assert request.public is False and request.config.target == 11
        assert [(s.human, s.level) for s in request.config.seats] == [
            (True, "medium"), (False, "hard"), (True, "medium")]
        await pilot.press("enter")
        screen = waiting(app)
        assert shows(app, "private: join it by its code")
        assert not screen.info.public and screen.info.rules.target == 11
        assert [s.kind for s in screen.info.seats] == ["person", "computer", "open"]


@asynctest
async def test_a_table_without_a_seat_for_a_person_is_refused() -> None:
    app = lobby_app(make_hub())
    async with app.run_test(size=(80, 30), notifications=True) as pilot:
        await to_tables(pilot)
        await pilot.press("n")
        await pilot.press("down", "down", "right")  # seat 1: a computer
        await pilot.press("down", "right")  # seat 2 as well
        await pilot.press("enter")
        assert isinstance(app.screen, CreateTableScreen)
        assert shows(app, "✗ a table needs a seat for you")
        await pilot.press("escape")
        assert isinstance(app.screen, TablesScreen)


# ---------------------------------------------------------------------- joining
@asynctest
async def test_sitting_at_a_table_from_the_list_and_the_creator_starting() -> None:
    hub = make_hub()
    info = await hub.create_table(people("person", "person"), BOB)
    app = lobby_app(hub)
    choices = opened(app)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await to_tables(pilot)
        await pilot.press("enter")
        screen = waiting(app)
        assert screen.seat == 1 and not screen.creator
        assert shows(app, "Bob starts the game") and not shows(app, "s start")
        await pilot.press("s")  # not hers to start
        assert shows(app, "Only Bob, who created this table, can start it")
        await hub.start(info.table_id, BOB)
        await until(pilot, lambda: bool(choices))
        assert choices == [TableChoice(info.table_id, 1)]
        # Bob started it: the keys of her waiting screen (Esc, ?) harm no game, and hers
        # that follow are for the game
        assert choices.unasked == [False]


@asynctest
async def test_enter_on_a_started_table_returns_to_ones_seat() -> None:
    hub = make_hub()
    info = await hub.create_table(people("person", "person"), BOB)
    await hub.take_seat(info.table_id, ANN)
    await hub.start(info.table_id, BOB)
    await hub.leave(info.table_id, ANN)  # away
    other = await hub.create_table(people("person", "hard"), EVE)
    await hub.start(other.table_id, EVE)
    app = lobby_app(hub)
    choices = opened(app)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await to_tables(pilot)
        assert shows(app, "Ann (away)") and shows(app, "playing · round 1")
        await pilot.press("enter")
        await until(pilot, lambda: bool(choices))
        assert choices == [TableChoice(info.table_id, 1)]
        assert isinstance(app.screen, TablesScreen)  # no waiting: the game is on
        # A started table where she has no seat: the reason, and nothing opens.
        await pilot.press("down", "enter")
        await pilot.pause()
        assert len(choices) == 1 and isinstance(app.screen, TablesScreen)
        assert shows(app, "This game has started: you can watch it.")


@asynctest
async def test_a_player_seated_at_a_game_in_progress_is_taken_back_to_it() -> None:
    """Ann comes back (she dropped, or the server restarted) while her table plays: the title
    screen takes her to her seat at once, as a table she did not ask for just now (the keys
    she typed at the title are not moves there: ``test_table_game``)."""
    hub = make_hub()
    info = await hub.create_table(people("person", "person"), BOB)
    await hub.take_seat(info.table_id, ANN)
    await hub.start(info.table_id, BOB)
    app = lobby_app(hub)
    choices = opened(app)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await app._back_to_table(hub, ANN)  # (as once the server's tables are reached)
        await until(pilot, lambda: bool(choices))
        assert choices == [TableChoice(info.table_id, 1)] and choices.unasked == [True]
        assert shows(app, f"Back at the table {info.code}.")


@asynctest
async def test_leaving_a_waiting_table_opens_the_seat_again() -> None:
    hub = make_hub()
    info = await hub.create_table(people("person", "person"), BOB)
    app = lobby_app(hub)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await to_tables(pilot)
        await pilot.press("enter")
        waiting(app)
        assert (await hub.find(info.code)).open_seats == 0
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, TablesScreen))
        assert (await hub.find(info.code)).open_seats == 1
        await until(pilot, lambda: shows(app, "waiting · 1 open seat"))


@pytest.mark.parametrize("typed", ["kamiro", "Ka-Mi-R0", " ka mi ro "])
@asynctest
async def test_join_by_code_in_any_form(typed: str) -> None:
    hub = make_hub()
    info = await hub.create_table(people("person", "person"), BOB, public=False)
    app = lobby_app(hub)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await to_tables(pilot)
        assert shows(app, "No tables yet")  # private: not listed
        await pilot.press("j")
        assert isinstance(app.screen, JoinCodeScreen)
        await pilot.press(*typed, "enter")
        await until(pilot, lambda: isinstance(app.screen, WaitingScreen))
        assert waiting(app).seat == 1 and waiting(app).info.table_id == info.table_id
        assert shows(app, "K A M I R O")


@asynctest
async def test_join_by_code_explains_a_bad_or_unknown_code() -> None:
    hub = make_hub()
    await hub.create_table(people("person", "person"), BOB)
    app = lobby_app(hub)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await to_tables(pilot)
        await pilot.press("j")
        await pilot.press(*"xyz", "enter")
        assert isinstance(app.screen, JoinCodeScreen)
        assert shows(app, "A table's code is 3 syllables such as KAMIRO")
        app.screen.query_one(Input).value = ""
        await pilot.press(*"bo-de-fu", "enter")
        await pilot.pause()
        assert isinstance(app.screen, JoinCodeScreen)
        assert shows(app, "BODEFU: no table has this code")
        await pilot.press("escape")
        assert isinstance(app.screen, TablesScreen)


@asynctest
async def test_join_by_code_at_a_full_table_watches_it() -> None:
    hub = make_hub()
    info = await hub.create_table(people("person", "person"), BOB)
    await hub.take_seat(info.table_id, EVE)
    app = lobby_app(hub)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await to_tables(pilot)
        await pilot.press("j", *"KAMIRO", "enter")
        await until(pilot, lambda: isinstance(app.screen, WaitingScreen))
        assert waiting(app).seat is None
        assert shows(app, "every seat at this table is taken") and shows(app, "You are watching")


# ---------------------------------------------------------------------- join CODE from the shell
@asynctest
async def test_join_from_the_shell_goes_straight_to_the_table() -> None:
    hub = make_hub()
    info = await hub.create_table(people("person", "person"), BOB)
    app = lobby_app(hub, join="KAMIRO")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await until(pilot, lambda: isinstance(app.screen, WaitingScreen))
        assert waiting(app).seat == 1
        assert not shows(app, "not open on this server")
        assert (await hub.find(info.code)).seats[1].holder == "Ann"
        await pilot.press("escape")  # leaving: the list of tables
        await until(pilot, lambda: isinstance(app.screen, TablesScreen))


@asynctest
async def test_join_from_the_shell_to_a_started_game_opens_it() -> None:
    hub = make_hub()
    info = await hub.create_table(people("person", "person"), BOB)
    await hub.take_seat(info.table_id, ANN)
    await hub.start(info.table_id, BOB)
    await hub.mark_away(info.table_id, ANN)
    app = lobby_app(hub, join="KAMIRO")
    choices = opened(app)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await until(pilot, lambda: bool(choices))
        assert choices == [TableChoice(info.table_id, 1)]
        assert (await hub.find(info.code)).seats[1].away_since is None  # back


@asynctest
async def test_join_from_the_shell_with_an_unknown_code() -> None:
    app = lobby_app(make_hub(), join="BODEFU")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TablesScreen))
        await pilot.pause()
        assert shows(app, "There is no table BODEFU to join: no table has this code")
        assert not shows(app, "not open on this server")


@asynctest
async def test_join_without_tables_on_the_server_says_so() -> None:
    app = make_app(tables=True, join="KAMIRO")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        assert shows(app, "There is no table KAMIRO to join: tables are not open on this "
                          "server yet.")
        assert isinstance(app.screen, TitleScreen)


@asynctest
async def test_a_served_game_frees_the_lobbys_screens_as_it_goes_to_the_table(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """In a game forked from a warm server (the fork server's objects frozen) the lobby's
    screens that are gone (the new table's form, its widgets), garbage that refers to itself,
    are collected as the table's game opens, so that its screen takes their memory; the
    collector is off here, so only that frees them."""
    import gc

    from casino_tui.app.screens.tablegame import TableGameScreen

    monkeypatch.setattr(gc, "get_freeze_count", lambda: 1)  # as in a forked game
    hub = make_hub()
    app = lobby_app(hub)
    gc.disable()
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await to_a_started_table(pilot, hub)
            await pilot.pause()
            assert isinstance(app.screen, TableGameScreen)
            lobby = [type(o).__name__ for o in gc.get_objects()
                     if isinstance(o, CreateTableScreen)]
            assert lobby == []
    finally:
        gc.enable()


@asynctest
async def test_from_the_lobby_to_the_tables_game_screen() -> None:
    """Create a table, Bob sits down through the hub, start: Ann's app shows the table's game
    screen for her seat, holding her hand only."""
    from casino_tui.app.screens.tablegame import TableGameScreen

    hub = make_hub()
    app = lobby_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        table = await to_a_started_table(pilot, hub)
        screen = app.screen
        assert isinstance(screen, TableGameScreen)
        view = await hub.snapshot(table, ANN)
        assert view.seat == 0 and len(view.hand) > 0
        assert screen.session.client.view.hand == view.hand


# ---------------------------------------------------------------------- watching
@asynctest
async def test_watching_a_table_until_its_game_starts() -> None:
    hub = make_hub()
    info = await hub.create_table(people("person", "person"), BOB)
    app = lobby_app(hub)
    choices = opened(app)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await to_tables(pilot)
        await pilot.press("w")
        screen = waiting(app)
        assert screen.seat is None and shows(app, "You are watching")
        assert shows(app, "stop watching")
        assert (await hub.find(info.code)).spectators == 1
        await hub.take_seat(info.table_id, EVE)
        await until(pilot, lambda: shows(app, "Eve"))
        await hub.start(info.table_id, BOB)
        await until(pilot, lambda: bool(choices))
        assert choices == [TableChoice(info.table_id, None)]


@asynctest
async def test_watching_a_started_table_opens_it() -> None:
    hub = make_hub()
    info = await hub.create_table(people("person", "hard"), BOB)
    await hub.start(info.table_id, BOB)
    app = lobby_app(hub)
    choices = opened(app)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await to_tables(pilot)
        await pilot.press("w")
        await until(pilot, lambda: bool(choices))
        assert choices == [TableChoice(info.table_id, None)]
        assert (await hub.find(info.code)).spectators == 1
        await pilot.press("escape")  # back to the title: stop watching happens at the table


# ---------------------------------------------------------------------- names shown literally
@pytest.mark.parametrize("name", [BAD, CLOSE, CLICK, "[red]x[/]"])
@asynctest
async def test_names_with_markup_are_shown_literally(name: str) -> None:
    hub = make_hub()
    odd = Person("key-odd", name)
    info = await hub.create_table(people("person", "person", "person"), odd)
    await hub.take_seat(info.table_id, Person("key-odd2", name + "2"))
    app = lobby_app(hub)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await to_tables(pilot)
        assert shows(app, f"by {name}") and shows(app, f"{name}, {name}2, open")
        await pilot.press("enter")
        screen = waiting(app)
        assert shows(app, f"created by {name}") and shows(app, f"{name}2")
        assert shows(app, f"{name} starts the game")
        await pilot.press("s")
        assert shows(app, f"Only {name}, who created this table")
        assert isinstance(app.screen, WaitingScreen) and screen.is_attached


@asynctest
async def test_the_display_name_is_the_name_at_tables() -> None:
    from casino_tui.settings import Settings

    hub: LocalHub = make_hub()
    app = make_app(hub=hub, person=Person("key-x", "Old"),
                   settings=Settings(speed="instant", display_name="New"))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        screen = await to_tables(pilot)
        assert screen.person == Person("key-x", "New")
        await pilot.press("n", "enter")
        await until(pilot, lambda: isinstance(app.screen, WaitingScreen))
        assert (await hub.find("KAMIRO")).creator == "New"


# ---------------------------------------------------------------------- the hub out of reach
class Faraway(LocalHub):
    """A hub over a connection that drops: every call fails while ``down``."""

    down = False

    async def list_tables(self, person: Person) -> list[TableInfo]:
        if self.down:
            raise ConnectionResetError("the server went away")
        return await super().list_tables(person)

    async def find(self, code: str) -> TableInfo:
        if self.down:
            raise ConnectionResetError("the server went away")
        return await super().find(code)


@asynctest
async def test_a_hub_out_of_reach_is_said_not_a_crash() -> None:
    from table_support import SeededThinker

    hub = Faraway(SeededThinker(), new_code=lambda: "KAMIRO")
    info = await hub.create_table(people("person", "person", "person"), BOB)
    app = lobby_app(hub)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await to_tables(pilot)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, WaitingScreen))
        hub.down = True
        await hub.take_seat(info.table_id, EVE)  # an event: the screen asks for the table
        await until(pilot, lambda: isinstance(app.screen, TablesScreen))
        assert shows(app, "The table KAMIRO is gone: the server's tables cannot be reached")
        app.clear_notifications()
        await pilot.press("j", *"KAMIRO", "enter")
        await pilot.pause()
        assert isinstance(app.screen, JoinCodeScreen)
        assert shows(app, "KAMIRO: the server's tables cannot be reached")
        assert app.is_running


def test_the_lobby_screens_stylesheets_exist() -> None:
    from casino_tui.app.screens.createtable import CreateTableScreen as Create

    for cls in (TablesScreen, WaitingScreen, JoinCodeScreen, Create):
        assert cls.CSS_PATH and all(Path(p).is_file() for p in cls.CSS_PATH)


@asynctest
async def test_the_join_code_box_shows_its_example_as_a_placeholder() -> None:
    """The example code must not look typed in: "e.g. KAMIRO", dim and italic."""
    app = lobby_app(make_hub())
    async with app.run_test(size=(80, 24)) as pilot:
        await to_tables(pilot)
        await pilot.press("j")
        assert isinstance(app.screen, JoinCodeScreen)
        field = app.screen.query_one("#joincode-input", Input)
        assert field.placeholder == "e.g. KAMIRO" and field.value == ""
        style = field.get_component_rich_style("input--placeholder")
        assert style.italic and style.color != field.rich_style.color
        assert shows(app, "e.g. KAMIRO")
        await pilot.press(*"ka")
        assert not shows(app, "e.g. KAMIRO")


# ---------------------------------------------------------------------- screens left behind
@asynctest
async def test_the_screens_on_the_way_to_a_table_let_go_of_their_widgets() -> None:
    """The display name, new table and waiting room screens, once gone, hold none of their
    widgets even while something still holds them (under a table's game, the list of tables'
    last message held the waiting room: casino_tui.app.letgo)."""
    import gc
    import weakref

    from textual.widget import Widget

    from casino_tui.app.screens.displayname import DisplayNameScreen
    from casino_tui.app.screens.tablegame import TableGameScreen
    from casino_tui.settings import Settings

    hub = make_hub()
    app = make_app(hub=hub, settings=Settings(speed="instant"))  # no display name yet
    app.tables_refresh = None
    held: list[Screen[object]] = []  # as a message left with a widget holds its sender
    widgets: list[weakref.ref[Widget]] = []

    def hold() -> None:
        held.append(app.screen)
        widgets.extend(weakref.ref(w) for w in app.screen.query("*"))

    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("t")
        assert isinstance(app.screen, DisplayNameScreen)
        hold()
        await pilot.press(*"Ann", "enter")
        await until(pilot, lambda: isinstance(app.screen, TablesScreen))
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, CreateTableScreen)
        hold()
        await pilot.press("enter")
        waiting(app)
        hold()
        table = (await hub.find("KAMIRO")).table_id
        await hub.take_seat(table, BOB)
        await until(pilot, lambda: shows(app, "Bob"))
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, TableGameScreen), limit=200)
        await pilot.pause()
        assert [type(s) for s in held] == [DisplayNameScreen, CreateTableScreen, WaitingScreen]
        assert all(not s.is_attached for s in held) and len(widgets) > 20
        gc.collect()
        alive = [w() for w in widgets if w() is not None]
        # (a text box is held a while longer by something of its own, not by its screen)
        assert {type(w).__name__ for w in alive} <= {"Input"}, alive


@asynctest
async def test_a_tables_game_takes_the_place_of_the_list_of_tables() -> None:
    """The list of tables is never seen again under a table's game (leaving goes to a new
    list over the title): the game takes its place, rather than holding it (its widgets,
    their caches, its timer) for the whole game."""
    from casino_tui.app.screens.tablegame import TableGameScreen

    hub = make_hub()
    app = lobby_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        table = await to_a_started_table(pilot, hub)
        await pilot.pause()
        assert [type(s) for s in app.screen_stack] == [TitleScreen, TableGameScreen]
        await pilot.press("q")  # leave the table: a new list of tables, over the title
        await pilot.pause()
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, TablesScreen))
        assert [type(s) for s in app.screen_stack] == [TitleScreen, TablesScreen]
        await until(pilot, lambda: [t.table_id for t in app.screen.tables] == [table])


@asynctest
async def test_guard_a_gone_screen_held_keeps_its_widgets_unless_it_lets_go() -> None:
    """Guard on Textual (a private behaviour: its list of displayed children, kept until it is
    asked for again): a screen popped and still held keeps its widgets alive, and
    let_go_of_widgets at its unmount frees them. If Textual changes, this says so."""
    import gc
    import weakref

    from textual.app import App, ComposeResult
    from textual.widgets import Static

    from casino_tui.app.letgo import let_go_of_widgets

    class Plain(Screen[None]):
        def compose(self) -> ComposeResult:
            yield Static("x", id="x")

    class LetsGo(Plain):
        def on_unmount(self) -> None:
            let_go_of_widgets(self)

    async def alive_after_pop(kind: type[Screen[None]]) -> bool:
        app: App[None] = App()
        async with app.run_test() as pilot:
            screen = kind()
            await app.push_screen(screen)
            await pilot.pause()
            widget = weakref.ref(screen.query_one("#x"))
            app.pop_screen()
            await pilot.pause()
            await pilot.pause()
            gc.collect()
            assert not screen.is_attached  # (held here, as a widget's last message does)
            return widget() is not None

    assert await alive_after_pop(Plain)  # Textual's list held it
    assert not await alive_after_pop(LetsGo)
