"""The table's creator and a seat over time, with the Textual pilot against an in-process
LocalHub: handing an away seat to a computer and back (keys shown only when they apply), a new
game at the same table from the game over screen, leaving for the list of tables, the finished
game in the player's statistics, and Continue going to the game at the player's seat."""

from __future__ import annotations

import asyncio

import pytest
from table_support import FakeAutogroup, SeededThinker
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widgets import OptionList

from casino_tui import procs
from casino_tui.app.screens.confirm import ConfirmScreen
from casino_tui.app.screens.gameover import TableGameOverScreen
from casino_tui.app.screens.summary import RoundSummaryScreen
from casino_tui.app.screens.tablegame import TableGameScreen
from casino_tui.app.screens.tables import TablesScreen, table_option
from casino_tui.app.screens.title import TitleScreen
from casino_tui.app.widgets.table import KeyBar, SeatBox
from casino_tui.engine import Phase, State
from casino_tui.procs import TABLE_NICE_ENV
from casino_tui.saves import Seat
from casino_tui.stats import GameRecord, Ledger
from casino_tui.table import GameConfig, SeatConfig
from casino_tui.table.hub import AWAY_GRACE, LocalHub, Person

from .conftest import asynctest
from .test_table_game import (
    ANN,
    BOB,
    EVE,
    Clock,
    line,
    new_table,
    play_round_through_hub,
    settle_table,
    sit_at,
    table_app,
    table_screen,
)

ZED = Person("key-zed", "Zed")


def short_game() -> GameConfig:
    return GameConfig(players=2, seats=(SeatConfig("South", True), SeatConfig("North", True)),
                      seed=13, target=1)


def key_names(screen: TableGameScreen) -> list[str]:
    data = screen.query_one("#keys", KeyBar).data or ()
    return [key for key, _desc in data]


def help_keys(screen: TableGameScreen) -> list[str]:
    return [key for _title, rows in screen.help_sections() for key, _ in rows]


# ---------------------------------------------------------------------------- away seats
@asynctest
async def test_the_creator_hands_an_away_seat_to_a_computer_after_the_wait_and_back() -> None:
    clock = Clock()
    hub = LocalHub(SeededThinker(), clock=clock)
    app = table_app(hub, clock=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub)
        screen = await sit_at(pilot, hub, tid, 0)
        assert screen.creator and "a" not in key_names(screen) and "a" not in help_keys(screen)
        ids = {b.id: b.key for b in TableGameScreen.BINDINGS if isinstance(b, Binding)}
        assert ids["game.hand_to_computer"] == "a" and ids["game.give_back"] == "g"
        await pilot.press("enter")  # Ann plays; Bob is to move
        await settle_table(pilot, hub, tid)
        await pilot.press("a")  # nobody is away
        assert "nobody is away" in line(screen, "#message-line")
        await hub.mark_away(tid, BOB)
        clock.now += 20
        await settle_table(pilot, hub, tid)
        assert "a" not in key_names(screen)
        await pilot.press("a")  # not long enough
        assert "Bob has been away for 20s: wait 41 s more" in line(screen, "#message-line")
        clock.now += AWAY_GRACE
        screen._refresh_away()  # (every few seconds)
        await pilot.pause()
        assert key_names(screen)[-1] == "a" and "a" in help_keys(screen)
        assert "g" not in key_names(screen)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "Let a computer (medium) play for Bob?" in app.screen.question
        await pilot.press("y")
        await settle_table(pilot, hub, tid)
        ctl = hub.controller(tid)
        assert ctl.seats[1].stand_in and ctl.to_move == 0  # the computer played Bob's turn
        seat_box = screen.query_one("#seat-0", SeatBox)
        assert "a computer plays for Bob (away 1m)" in seat_box.render().plain
        assert "a" not in key_names(screen) and key_names(screen)[-1] == "g"
        assert "g" in help_keys(screen)
        await pilot.press("g")  # the seat waits for Bob again
        await settle_table(pilot, hub, tid)
        assert not ctl.seats[1].stand_in and ctl.seats[1].away_since is not None
        assert "g" not in key_names(screen) and "a" in key_names(screen)
        await pilot.press("a", "y")
        await settle_table(pilot, hub, tid)
        await hub.come_back(tid, BOB)  # Bob takes his seat back by returning
        await settle_table(pilot, hub, tid)
        assert not ctl.seats[1].stand_in
        assert "a" not in key_names(screen) and "g" not in key_names(screen)


@asynctest
async def test_only_the_creator_has_the_keys_of_away_seats() -> None:
    clock = Clock()
    hub = LocalHub(SeededThinker(), clock=clock)
    app = table_app(hub, BOB, clock=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub)
        screen = await sit_at(pilot, hub, tid, 1)
        await hub.mark_away(tid, ANN)
        clock.now += 2 * AWAY_GRACE
        await settle_table(pilot, hub, tid)
        assert not screen.creator and "a" not in key_names(screen)
        assert "a" not in help_keys(screen)
        await pilot.press("a")
        assert "only the table's creator" in line(screen, "#message-line")
        assert not hub.controller(tid).seats[0].stand_in


# ---------------------------------------------------------------------------- new game
async def to_game_over(pilot: Pilot[None], hub: LocalHub, tid: str) -> TableGameOverScreen:
    await play_round_through_hub(hub, tid, pilot)
    await settle_table(pilot, hub, tid)
    assert hub.controller(tid).game_over
    assert isinstance(pilot.app.screen, RoundSummaryScreen)
    await pilot.press("enter")
    await settle_table(pilot, hub, tid)
    assert isinstance(pilot.app.screen, TableGameOverScreen)
    return pilot.app.screen


@asynctest
async def test_the_creator_starts_a_new_game_at_the_table_with_the_same_seats() -> None:
    hub = LocalHub(SeededThinker(), clock=Clock())
    app = table_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub, short_game())
        screen = await sit_at(pilot, hub, tid, 0)
        over = await to_game_over(pilot, hub, tid)
        assert over.starter is None  # Ann created the table
        assert "n new game at this table" in str(over.query_one(".dialog-keys").render())
        await pilot.press("n")
        await settle_table(pilot, hub, tid)
        ctl = hub.controller(tid)
        assert not ctl.game_over and ctl.state.round_no == 1 and ctl.names == ["Ann", "Bob"]
        assert app.screen is screen and not screen._finished
        assert screen.net.view.phase in (Phase.PLAY, Phase.PLUCK)
        assert "A new game begins at this table" in [
            e.text for e in screen.net.log]
        if ctl.to_move == 0:
            assert screen.awaiting_human
        # the new game's round summary is shown again
        await play_round_through_hub(hub, tid, pilot)
        await settle_table(pilot, hub, tid)
        assert isinstance(app.screen, RoundSummaryScreen) and app.screen.data.round_no == 1


@asynctest
async def test_the_others_wait_for_the_creator_and_the_new_game_replaces_game_over() -> None:
    hub = LocalHub(SeededThinker(), clock=Clock())
    app = table_app(hub, BOB)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub, short_game())
        screen = await sit_at(pilot, hub, tid, 1)
        over = await to_game_over(pilot, hub, tid)
        waiting = over.query_one("#gameover-waiting").render()
        assert str(waiting) == "Waiting for Ann to start a new game at this table"
        await pilot.press("n")  # not Bob's to start
        await pilot.pause()
        assert app.screen is over and hub.controller(tid).game_over
        await hub.new_game(tid, ANN)
        await hub.idle(tid)
        await settle_table(pilot, hub, tid)
        assert app.screen is screen and not screen._finished
        assert screen.net.view.round_no == 1 and screen.net.view.phase != Phase.GAME_OVER
        assert any(isinstance(s, TableGameScreen) for s in app.screen_stack)


# ---------------------------------------------------------------------------- leaving
@asynctest
async def test_leaving_a_table_goes_back_to_the_list_of_tables() -> None:
    hub = LocalHub(SeededThinker(), clock=Clock())
    app = table_app(hub)
    app.tables_refresh = None
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub)
        await sit_at(pilot, hub, tid, 0)
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "go back to the list of tables" in app.screen.question
        await pilot.press("y")
        for _ in range(50):
            await pilot.pause()
            if isinstance(app.screen, TablesScreen):
                break
        assert isinstance(app.screen, TablesScreen)
        assert isinstance(app.screen_stack[0], TitleScreen) and len(app.screen_stack) == 2
        await hub.idle(tid)
        assert hub.controller(tid).seats[0].away_since is not None


def test_a_seats_game_runs_at_the_tables_priority_until_it_leaves(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Under a server that gives tables a priority (TABLE_NICE_ENV), a seat's game takes it
    while its table is shown and gives it back when it leaves; someone watching keeps theirs."""
    group = FakeAutogroup(19)
    monkeypatch.setattr(procs, "_AUTOGROUP", group)
    monkeypatch.setattr(procs, "_wanted", None)
    monkeypatch.setattr(procs, "_before_table", None)
    monkeypatch.setenv(TABLE_NICE_ENV, "10")

    async def go() -> None:
        hub = LocalHub(SeededThinker(), clock=Clock())
        app = table_app(hub)
        app.tables_refresh = None
        async with app.run_test(size=(80, 24)) as pilot:
            tid = await new_table(hub)
            await sit_at(pilot, hub, tid, 0)
            assert group.value == 10
            await pilot.press("q", "y")
            for _ in range(50):
                await pilot.pause()
                if isinstance(app.screen, TablesScreen):
                    break
            assert isinstance(app.screen, TablesScreen)
            assert group.value == 19 and group.written == [10, 19]
        watcher = table_app(hub, EVE)
        async with watcher.run_test(size=(80, 24)) as pilot:
            await sit_at(pilot, hub, tid, None)
            assert group.written == [10, 19]

    asyncio.run(go())


# ---------------------------------------------------------------------------- statistics
@asynctest
async def test_a_finished_table_game_goes_into_the_players_statistics() -> None:
    hub = LocalHub(SeededThinker(), clock=Clock())
    app = table_app(hub, BOB)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub, short_game())
        await sit_at(pilot, hub, tid, 1)
        await to_game_over(pilot, hub, tid)
        ctl = hub.controller(tid)
        game = ctl.game_id
        records: list[GameRecord] = []
        for _ in range(100):
            await pilot.pause()
            records = Ledger(app.data_dir).load(app.store).records
            if records:
                break
        assert len(records) == 1
        record = records[0]
        st = ctl.state
        assert record.game == f"table-{game}" and record.seat == 1
        assert record.side == st.side_of[1] and record.players == 2
        assert record.opponents == ("person",) and record.preset == st.rules.preset_name
        assert record.scores == tuple(st.scores)
        assert record.result == ("win" if st.winner == record.side else
                                 "draw" if st.winner is None else "loss")
        assert sum(record.rounds) == st.scores[record.side]  # type: ignore[index]
        # seeing the game over again (the table opened afresh) does not count it twice
        net = table_screen(app).net
        app.record_table_game(net.client, net.view)
        for _ in range(20):
            await pilot.pause()
        assert len(Ledger(app.data_dir).load(app.store).records) == 1


# ---------------------------------------------------------------------------- Continue
@asynctest
async def test_continue_goes_to_the_game_at_the_players_seat_without_a_solo_save() -> None:
    hub = LocalHub(SeededThinker(), clock=Clock())
    tid = ""

    async def prepare() -> None:
        nonlocal tid
        tid = await new_table(hub)
        await hub.mark_away(tid, ANN)  # she dropped (or the server restarted)

    app = table_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await prepare()
        code = (await hub.list_tables(ANN))[0].code
        title = app.screen
        assert isinstance(title, TitleScreen)
        title.refresh_menu()
        for _ in range(50):
            await pilot.pause()
            if app.table_to_continue is not None:
                break
        menu = title.query_one("#title-menu", OptionList)
        option = menu.get_option("continue")
        assert not option.disabled
        assert str(option.prompt).endswith(f"table {code} · round 1")
        await pilot.press("c")
        await settle_table(pilot, hub, tid)
        screen = table_screen(app)
        assert screen.net.seat == 0 and hub.controller(tid).seats[0].away_since is None


@asynctest
async def test_with_a_solo_save_continue_keeps_it_and_the_tables_list_marks_your_seat() -> None:
    hub = LocalHub(SeededThinker(), clock=Clock())
    app = table_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub)
        slot = app.store.new_game([Seat("[b]Ann[/b]", "human"), Seat("CPU", "computer",
                                                                        "easy")])
        app.store.autosave(slot, State(GameConfig().rules(), 2, 5))
        app.store.close(slot)
        title = app.screen
        assert isinstance(title, TitleScreen)
        title.refresh_menu()
        for _ in range(50):
            await pilot.pause()
            if app.table_to_continue is not None:
                break
        assert app.table_to_continue is not None and app.table_to_continue.table_id == tid
        option = title.query_one("#title-menu", OptionList).get_option("continue")
        assert "[b]Ann[/b] v CPU · round 1" in str(option.prompt)  # literal, the solo save
        infos = await hub.list_tables(ANN)
        assert "your seat" in table_option(infos[0]).plain
        assert "your seat" not in table_option((await hub.list_tables(ZED))[0]).plain


@asynctest
async def test_a_game_is_recorded_even_when_the_next_one_begins_during_its_summary() -> None:
    hub = LocalHub(SeededThinker(), clock=Clock())
    app = table_app(hub, BOB)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub, short_game())
        screen = await sit_at(pilot, hub, tid, 1)
        await play_round_through_hub(hub, tid, pilot)
        await settle_table(pilot, hub, tid)
        ctl = hub.controller(tid)
        final = list(ctl.state.scores)
        assert isinstance(app.screen, RoundSummaryScreen) and app.screen.data.game_over
        await hub.new_game(tid, ANN)  # while Bob still reads the last round's summary
        await hub.idle(tid)
        await settle_table(pilot, hub, tid)
        records: list[GameRecord] = []
        for _ in range(100):
            await pilot.pause()
            records = Ledger(app.data_dir).load(app.store).records
            if records:
                break
        assert len(records) == 1 and records[0].scores == tuple(final)
        assert len(records[0].rounds) == 1 and sum(records[0].rounds) == final[1]
        await pilot.press("enter")  # the summary seen: the new game goes on
        await settle_table(pilot, hub, tid)
        assert app.screen is screen and not screen._finished
        assert not any(isinstance(s, TableGameOverScreen) for s in app.screen_stack)
