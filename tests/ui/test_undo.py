"""Undo (``u``): the person's last play and the computers' plays after it are taken back; the
save is marked (``extra.undo``) and stays so through quitting and continuing; refused with a
reason with two people at the keyboard, when the setting is off, and at a server's table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

import casino_tui.__main__ as cli
from casino_tui.app.app import CasinoApp
from casino_tui.app.players import InProcessChooser
from casino_tui.app.screens.game import GameScreen
from casino_tui.app.screens.summary import RoundSummaryScreen
from casino_tui.app.widgets.table import RecentPlays
from casino_tui.engine.notation import format_position
from casino_tui.saves import SaveStore, open_store
from casino_tui.settings import Settings
from casino_tui.stats import record_from_game
from casino_tui.table import GameConfig, MoveRefused, TableController, default_seats

from .conftest import asynctest, make_app, settle
from .positions import greedy_first, last_play


def game_screen(app: CasinoApp) -> GameScreen:
    screen = app.screen
    assert isinstance(screen, GameScreen), screen
    return screen


def games(data: Path) -> list[Path]:
    return sorted((data / "games").glob("*.json"))


def app_for(store: SaveStore, config: GameConfig, **kw: Any) -> CasinoApp:
    settings = kw.pop("settings", Settings(speed="instant"))
    return CasinoApp(config=config, chooser_factory=lambda: InProcessChooser(greedy_first),
                     store=store, settings=settings, save_settings_to_disk=False, **kw)


def message(app: CasinoApp) -> str:
    return game_screen(app)._message.text


@asynctest
async def test_undo_then_quit_and_continue(tmp_path: Path) -> None:
    config = GameConfig(seats=default_seats(2), seed=23)
    store = open_store(tmp_path / "data")
    app = app_for(store, config)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(config, None)
        await settle(pilot)
        screen = game_screen(app)
        before = format_position(screen.state)
        start = list(screen.state.history)  # North (the computer) deals to South: plays first
        await pilot.press("u")  # nothing played yet
        assert "no play to take back" in message(app)
        await pilot.press("enter")  # South plays, North (the computer) answers
        await settle(pilot)
        assert len(screen.state.history) == len(start) + 2
        await pilot.press("u")
        await settle(pilot)
        assert format_position(screen.state) == before and screen.awaiting_human
        assert "Took back your play and the 1 after it" in message(app)
        assert screen.session.log[-1].text == "Undo: took back your play and the 1 after it"
        [path] = games(tmp_path / "data")
        data = json.loads(path.read_text())
        assert data["extra"]["undo"] is True and len(data["moves"]) == len(start)
        await pilot.press("t")  # another play: a trail of the first card
        await settle(pilot)
        played = format_position(screen.state)
        await pilot.press("ctrl+q")

    resumed, _ = cli._resume(store, cli.build_parser().parse_args(["--continue"]))
    assert resumed is not None and resumed.undo and resumed.slot is not None
    assert resumed.slot.undo
    assert format_position(resumed.state) == played  # the undone play stays undone
    app = app_for(store, config, resume=resumed)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert format_position(game_screen(app).state) == played
        await pilot.press("enter")
        await settle(pilot)
    data = json.loads(games(tmp_path / "data")[0].read_text())
    assert data["extra"]["undo"] is True  # kept by every later save


@asynctest
async def test_undo_on_the_round_summary_and_at_the_next_round() -> None:
    """``u`` on the round summary takes back the play that ended the round (the summary closes,
    the points are not scored, it is the person's turn again; the summary comes again when the
    round ends again); ``u`` early in the next round goes back into the last one."""
    app = make_app(last_play())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = game_screen(app)
        before = format_position(screen.state)
        scores = list(screen.state.scores)
        await pilot.press("enter")  # South's last card ends the round
        await settle(pilot)
        summary = app.screen
        assert isinstance(summary, RoundSummaryScreen) and summary.undo
        assert "u: undo" in str(summary.query_one(".dialog-keys", Static).render())
        await pilot.press("u")
        await settle(pilot)
        assert app.screen is screen and screen.awaiting_human
        assert format_position(screen.state) == before and screen.state.scores == scores
        assert "Took back your play" in message(app)
        await pilot.press("enter")  # the same play: the round ends again
        await settle(pilot)
        assert isinstance(app.screen, RoundSummaryScreen)
        await pilot.press("enter")  # the next round
        await settle(pilot)
        first = screen.state.round_summaries[-1].round_no
        assert screen.state.round_no == first + 1 and screen.awaiting_human
        await pilot.press("u")
        await settle(pilot)
        assert screen.state.round_no == first and format_position(screen.state) == before
        assert screen.awaiting_human


@asynctest
async def test_the_round_summary_offers_no_undo_when_it_is_off() -> None:
    app = make_app(last_play(), settings=Settings(speed="instant", undo=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        summary = app.screen
        assert isinstance(summary, RoundSummaryScreen) and not summary.undo
        await pilot.press("u")  # nothing: the summary stays
        await pilot.pause()
        assert app.screen is summary


@asynctest
async def test_undo_is_refused_in_a_hot_seat_game() -> None:
    config = GameConfig(seats=default_seats(2, humans=2), seed=5)
    app = make_app(config=config)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(config, None)
        await settle(pilot)
        await pilot.press("enter")  # past the privacy screen
        await settle(pilot)
        screen = game_screen(app)
        await pilot.press("enter")  # South plays
        await settle(pilot)
        await pilot.press("enter")  # North's privacy screen
        await settle(pilot)
        history = list(screen.state.history)
        await pilot.press("u")
        assert "more than one person" in message(app)
        assert screen.state.history == history


@asynctest
async def test_undo_is_refused_when_off_in_the_settings() -> None:
    config = GameConfig(seats=default_seats(2), seed=5)
    app = make_app(config=config, settings=Settings(speed="instant", undo=False))
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(config, None)
        await settle(pilot)
        screen = game_screen(app)
        await pilot.press("enter")
        await settle(pilot)
        history = list(screen.state.history)
        await pilot.press("u")
        assert "undo is off in the settings" in message(app)
        assert screen.state.history == history


@asynctest
async def test_the_settings_screen_turns_undo_off() -> None:
    config = GameConfig(seats=default_seats(2), seed=5)
    app = make_app(config=config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.start_game(config, None)
        await settle(pilot)
        await pilot.press("o")
        await pilot.pause()
        app.screen.query_one("#set-undo").focus()
        await pilot.press("right", "enter")
        await settle(pilot)
        assert app.settings.undo is False


# ------------------------------------------------------------------------------ the controller
def two_player_table(humans: int = 1) -> TableController:
    return TableController(GameConfig(seats=default_seats(2, humans=humans), seed=41))


def play_first(table: TableController) -> None:
    st = table.state
    table.play(st.current_player or 0, st.legal_moves()[0])


def test_controller_undo_takes_back_the_persons_play_and_the_computers_after_it() -> None:
    table = two_player_table()
    if table.to_move != 0:
        with pytest.raises(MoveRefused, match="no play to take back"):
            table.undo(0)
        play_first(table)  # North (the computer) plays first
    start = format_position(table.state)
    kinds = [e.kind for e in table.events]
    epoch = table.epoch
    play_first(table)  # South (the person)
    play_first(table)  # North (the computer)
    assert table.undo(0) == 2
    assert format_position(table.state) == start and table.epoch != epoch
    assert [e.kind for e in table.events] == kinds
    with pytest.raises(MoveRefused, match="only a person's play"):
        table.undo(1)


def test_controller_undo_within_a_later_round() -> None:
    """The round's first play taken back: the next round is dealt again, as it was."""
    table = two_player_table()
    while table.state.round_no == 1:
        if table.round_over:
            table.next_round()
            break
        play_first(table)
    start = format_position(table.state)
    while table.to_move != 0:
        play_first(table)
    before_person = format_position(table.state)
    play_first(table)
    play_first(table)
    table.undo(0)
    assert format_position(table.state) == before_person
    assert table.state.round_no == 2 and start


def test_controller_undo_across_the_end_of_a_round() -> None:
    """At the end of a round the play that ended it can be taken back (the round is in play
    again, its points not scored); at the start of the next round, before the person has played
    in it, undo goes back into the last round; once the game is over, nothing is taken back."""
    table = two_player_table()
    before_south: list[str] = []  # the positions before each of South's plays
    south_at: list[int] = []  # and the length of the history then
    while not table.round_over:
        if table.to_move == 0 and table.state.phase == "play":
            before_south.append(format_position(table.state))
            south_at.append(len(table.state.history))
        play_first(table)
    assert table.state.round_summaries and table.undo_refusal(0) is None
    table.undo(0)
    assert format_position(table.state) == before_south[-1]
    assert not table.state.round_summaries and not table.round_over
    assert table.state.scores == [0, 0]
    while not table.round_over:
        play_first(table)
    table.next_round()
    while table.to_move != 0:
        play_first(table)  # (North, if North leads the second round)
    assert table.state.round_no == 2
    played = len(table.state.history)
    taken = table.undo(0)
    assert taken == played - south_at[-1]  # South's last play of round 1 and all after it
    assert table.state.round_no == 1 and len(table.state.history) == south_at[-1]
    assert format_position(table.state) == before_south[-1]
    short = TableController(GameConfig(seats=default_seats(2), seed=3, target=2))
    while not short.game_over:
        if short.round_over:
            short.next_round()
        else:
            play_first(short)
    with pytest.raises(MoveRefused, match="the game is over"):
        short.undo(0)


def test_controller_refuses_undo_with_two_people() -> None:
    table = two_player_table(humans=2)
    play_first(table)
    with pytest.raises(MoveRefused, match="more than one person"):
        table.undo(0)


def test_the_ledger_record_says_undo_was_used(tmp_path: Path) -> None:
    """A finished game whose save is marked: the ledger's record (also when rebuilt from the
    saves) has the undo flag."""
    from casino_tui.stats import Ledger

    store = open_store(tmp_path / "data")
    table = TableController(GameConfig(seats=default_seats(2), seed=3, target=2))
    slot = store.new_game(list(cli_seats()))
    table.store, table.slot = store, slot
    play_first(table)
    play_first(table)
    table.undo(0)
    while not table.game_over:
        if table.round_over:
            table.next_round()
        else:
            play_first(table)
    store.close(slot)
    [path] = games(tmp_path / "data")
    game = store.load(path, read_only=True)
    assert game.undo and game.state.is_game_over
    assert game.updated is not None
    record = record_from_game(game.state, game.seats, game="g", ended=game.updated,
                              undo=game.undo)
    assert record.undo
    found = Ledger(tmp_path / "data").load(store)
    assert [r.undo for r in found.records] == [True]


def cli_seats() -> Any:
    from casino_tui.saves import Seat

    return (Seat.human("South"), Seat.computer("North", "medium"))


def test_old_files_without_the_field_load_unmarked(tmp_path: Path) -> None:
    store = open_store(tmp_path / "data")
    example = Path(__file__).resolve().parents[2] / "saves" / "fresh-game.json"
    game = store.load(example, read_only=True)
    assert not game.undo


@asynctest
async def test_there_is_no_undo_at_a_servers_table() -> None:
    """Ann alone against a computer at a hub's table: u is refused with the reason, and the
    table's help does not offer it."""
    from table_support import SeededThinker

    from casino_tui.app.screens.help import HelpScreen
    from casino_tui.table import SeatConfig
    from casino_tui.table.hub import LocalHub

    from .test_table_game import ANN, Clock, line, settle_table, sit_at, table_app

    hub = LocalHub(SeededThinker(), clock=Clock())
    app = table_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        config = GameConfig(players=2, seed=13, seats=(SeatConfig("South", True),
                                                       SeatConfig("North", False, "easy")))
        info = await hub.create_table(config, ANN)
        await hub.start(info.table_id, ANN)
        await hub.idle(info.table_id)
        screen = await sit_at(pilot, hub, info.table_id, 0)
        await pilot.press("enter")
        await settle_table(pilot, hub, info.table_id)
        number = hub.controller(info.table_id).number
        await pilot.press("u")
        await settle_table(pilot, hub, info.table_id)
        assert "no undo at a server's table" in line(screen, "#message-line")
        assert hub.controller(info.table_id).number == number
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert "u" not in [k for _t, keys in app.screen.sections for k, _w in keys]


def test_a_copy_of_a_game_with_undo_is_marked_too(tmp_path: Path) -> None:
    """ctrl+s (a named copy) and --load of a marked file (a copy into the saves) keep the
    mark; a game never undone has no such field at all."""
    store = open_store(tmp_path / "data")
    table = TableController(GameConfig(seats=default_seats(2), seed=3))
    slot = store.new_game(list(cli_seats()))
    table.store, table.slot = store, slot
    table.save_now()
    [plain] = games(tmp_path / "data")
    assert "undo" not in json.loads(plain.read_text())["extra"]
    while table.to_move != 0:
        play_first(table)
    play_first(table)
    table.undo(0)
    entry = store.save_copy(slot, table.state, "a copy")
    assert json.loads(entry.path.read_text())["extra"]["undo"] is True
    store.close(slot)
    other = open_store(tmp_path / "other")
    game = other.load(entry.path)
    assert game.slot is not None and game.slot.undo
    other.close(game.slot)


@asynctest
async def test_after_an_undo_the_last_play_line_stays_and_a_resumed_log_says_undo(
        tmp_path: Path) -> None:
    config = GameConfig(seats=default_seats(2), seed=23)
    store = open_store(tmp_path / "data")
    app = app_for(store, config)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(config, None)
        await settle(pilot)
        screen = game_screen(app)
        await pilot.press("enter")  # South plays, North answers: the line shows North's play
        await settle(pilot)
        recent = screen.query_one("#recent", RecentPlays)
        shown = recent.data
        assert shown is not None and shown.lines and "North" in shown.lines[-1][1]
        await pilot.press("enter")  # South and North again
        await settle(pilot)
        assert recent.data != shown
        await pilot.press("u")  # back to the position after North's first answer
        await settle(pilot)
        assert recent.data == shown  # the table still says what North played
        log = [e.text for e in screen.session.log]
        assert log[-1] == "Undo: took back your play and the 1 after it"
        await pilot.press("ctrl+q")

    resumed, _ = cli._resume(store, cli.build_parser().parse_args(["--continue"]))
    assert resumed is not None and resumed.undo_last == (len(resumed.state.history), 2)
    app = app_for(store, config, resume=resumed)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = game_screen(app)
        assert [e.text for e in screen.session.log] == [*log, "Continued from the saved game"]
        await pilot.press("enter")  # play goes on: the undo's line stays where it was made
        await settle(pilot)
        await pilot.press("ctrl+q")
    resumed, _ = cli._resume(store, cli.build_parser().parse_args(["--continue"]))
    assert resumed is not None
    app = app_for(store, config, resume=resumed)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        texts = [e.text for e in game_screen(app).session.log]
        assert texts[:len(log)] == log and len(texts) > len(log) + 1
        assert texts.count("Undo: took back your play and the 1 after it") == 1
