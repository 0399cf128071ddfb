"""Pilot tests of the game table's keys: each checks one behaviour, in as few presses as it can."""

from __future__ import annotations

import json
from pathlib import Path

from casino_tui.app.app import CasinoApp
from casino_tui.app.players import InProcessChooser, WorkerChooser
from casino_tui.app.screens.game import GAME_KEYS, GameScreen
from casino_tui.app.screens.gameover import GameOverScreen
from casino_tui.app.screens.picklist import PickListScreen
from casino_tui.app.screens.privacy import PrivacyScreen
from casino_tui.app.screens.settings import SettingsScreen
from casino_tui.app.screens.setup import SetupScreen
from casino_tui.app.screens.summary import RoundSummaryScreen
from casino_tui.app.screens.title import TitleScreen
from casino_tui.app.screens.toosmall import TooSmallScreen
from casino_tui.app.widgets.table import HandView, StatusLine, TableView
from casino_tui.engine import Build, Move
from casino_tui.settings import Settings

from .conftest import asynctest, make_app, settle
from .positions import cards, config_for, last_play, position, table_2p, table_4p


def game(app: object) -> GameScreen:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, GameScreen)
    return screen


def message(screen: GameScreen) -> str:
    data = screen.query_one("#message-line", StatusLine).data
    assert data is not None
    return data.text


@asynctest
async def test_cards_and_moves_cycle_with_arrows_and_digits() -> None:
    app = make_app(table_2p())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = game(app)
        assert screen.current_move == Move.capture(cards("8C")[0], (3,))
        await pilot.press("2")  # 9♠: three captures
        nine = cards("9S")[0]
        seen = set()
        for _ in range(3):
            move = screen.current_move
            assert move is not None and move.card == nine and move.kind == "capture"
            seen.add(move.piles)
            await pilot.press("down")
        assert seen == {(4,), (0, 1), (0, 1, 4)}
        await pilot.press("left")  # back to 8♣
        assert screen.current_move is not None and screen.current_move.card == cards("8C")[0]
        table = screen.query_one("#table", TableView).data
        assert table is not None and table.highlight == frozenset({3})


@asynctest
async def test_enter_plays_the_previewed_move() -> None:
    state = table_2p()
    app = make_app(state)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = game(app)
        await pilot.press("2", "down")  # 9♠, second capture
        move = screen.current_move
        assert move is not None
        await pilot.press("enter")
        await settle(pilot)
        assert state.history[0] == move
        assert screen.session.log[1].text.startswith("South took")


@asynctest
async def test_illegal_trail_shows_the_engine_reason_and_changes_nothing() -> None:
    state = table_2p()
    app = make_app(state)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = game(app)
        before = (list(state.table), [list(h) for h in state.hands])
        await pilot.press("t")
        assert message(screen) == "you own a build of 8, so you may not trail"
        assert (list(state.table), [list(h) for h in state.hands]) == before
        assert not state.history and screen.awaiting_human


@asynctest
async def test_free_selection_narrows_the_moves_and_explains_illegal_ones() -> None:
    state = table_2p()
    app = make_app(state)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = game(app)
        await pilot.press("2", "space", "tab", "space")  # 9♠ with 3♣ and 6♦ selected
        move = screen.current_move
        assert move == Move.capture(cards("9S")[0], (0, 1))
        await pilot.press("tab", "space")  # add K♠: no move uses exactly these piles
        assert screen.current_move is None
        await pilot.press("enter")
        assert "cannot take those piles" in message(screen)
        assert not state.history
        await pilot.press("escape")
        assert screen.current_move is not None and message(screen) == "Your turn"
        await pilot.press("tab", "space", "tab", "space", "enter")  # 3♣ + 6♦ again
        await settle(pilot)
        assert state.history[0] == Move.capture(cards("9S")[0], (0, 1))


@asynctest
async def test_move_list_filters_and_plays() -> None:
    state = table_2p()
    app = make_app(state)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("m")
        picker = app.screen
        assert isinstance(picker, PickListScreen)
        assert len(picker.shown) == len(state.legal_moves())
        await pilot.press(*"raise 10")
        assert len(picker.shown) >= 1
        expected = picker.items[picker.shown[0]][0]
        assert expected.kind == "build" and expected.value == 10
        await pilot.press("enter")
        await settle(pilot)
        assert state.history[0].same_action(expected)


@asynctest
async def test_pluck_with_the_cursor() -> None:
    state = position("pluck_cassino", 2, table=cards("3C 4H 9D"), hands=["8C 9S", "5C 6D"],
                     to_move=0, dealer=1, stock=0)
    app = make_app(state)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = game(app)
        await pilot.press("p")
        assert "cursor" in message(screen)
        await pilot.press("tab", "tab", "p")  # 4♥
        await settle(pilot)
        assert state.history[0] == Move.pluck(cards("4H")[0])
        assert cards("4H")[0] in state.captured[0]


@asynctest
async def test_claim_asks_first() -> None:
    state = position("call_out_21", 2, table=cards("3C 4H"), hands=["8C 9S", "5C 6D"],
                     to_move=0, dealer=1, stock=0, scores=[20, 3])
    app = make_app(state)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("c", "n")
        assert not state.history
        await pilot.press("c", "y")
        await settle(pilot)
        assert state.history[0] == Move.claim() and state.is_game_over


@asynctest
async def test_computer_moves_stay_listed_until_the_person_plays() -> None:
    state = table_4p()
    app = make_app(state)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = game(app)
        assert [m.kind for m in state.history] and len(state.history) == 3
        recent = screen.query_one("#recent").data  # type: ignore[attr-defined]
        assert [text.split()[0] for _, text in recent.lines] == ["West", "North", "East"]
        await pilot.press("enter")
        await settle(pilot)
        recent = screen.query_one("#recent").data  # type: ignore[attr-defined]
        assert len(recent.lines) == 3 and recent.lines[0][1].startswith("West")
        assert len(state.history) == 7


@asynctest
async def test_hot_seat_hides_the_hand_until_a_key() -> None:
    state = table_2p()
    app = make_app(state, humans=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, PrivacyScreen)
        screen = next(s for s in app.screen_stack if isinstance(s, GameScreen))
        hand = screen.query_one("#hand", HandView).data
        assert hand is not None and hand.cards is None
        await pilot.press("x")
        await settle(pilot)
        hand = screen.query_one("#hand", HandView).data
        assert hand is not None and hand.cards == tuple(state.hands[0])
        await pilot.press("enter")  # South plays; North is a person too
        await settle(pilot)
        assert isinstance(app.screen, PrivacyScreen)
        hand = screen.query_one("#hand", HandView).data
        assert hand is not None and hand.cards is None


@asynctest
async def test_too_small_terminal_pauses_the_game() -> None:
    state = table_4p()
    app = make_app(state)
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, TooSmallScreen)
        assert not state.history  # nobody played behind the message
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert isinstance(app.screen, GameScreen) and len(state.history) == 3
        await pilot.resize_terminal(79, 24)
        assert isinstance(app.screen, TooSmallScreen)
        await pilot.resize_terminal(100, 30)
        await settle(pilot)
        assert isinstance(app.screen, GameScreen)


@asynctest
async def test_settings_are_saved_and_applied(_config_dir: Path) -> None:
    app = make_app(table_2p(), save=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        assert isinstance(app.screen, SettingsScreen)
        await pilot.press("right", "down", "right", "enter")  # ASCII cards, four colours
        await settle(pilot)
        saved = json.loads((_config_dir / "settings.json").read_text())
        assert saved["card_style"] == "ascii" and saved["four_colour"] is True
        line = game(app).query_one("#move-line", StatusLine).data
        assert line is not None and "8C" in line.text


def test_help_lists_every_key_of_the_table() -> None:
    described = " ".join(k for k, _ in GAME_KEYS).lower()
    for binding in GameScreen.BINDINGS:
        key = binding.key  # type: ignore[union-attr]
        name = {"left": "←", "right": "→", "up": "↑", "down": "↓", "enter": "enter",
                "escape": "esc", "space": "space", "tab": "tab", "shift+tab": "shift+tab"}.get(
            key, key)
        if key.isdigit():
            name = "1-9"
        assert name in described, key


def test_in_process_chooser_uses_the_ai_package_by_default() -> None:
    from casino_tui.ai import choose_move

    state = table_2p()
    state.apply(state.legal_moves()[0])
    view = state.view(1)
    assert InProcessChooser().choose_now(view, "random", 4) == choose_move(view, "random", seed=4)


def test_builds_read_value_kind_and_owner() -> None:
    from casino_tui.app.cardfmt import CardPainter

    build = Build(tuple(cards("7C 2D")), 9, True, 1)
    text = CardPainter().pile_text(build, ["South", "North"]).plain
    assert text == "[7♣ 2♦] 9 single · North"
    assert CardPainter(symbols=False).pile_text(build, ["S", "N"]).plain == "[7C 2D] 9 single · N"


@asynctest
async def test_computers_think_in_the_worker_process() -> None:
    """The default chooser: moves come from casino_tui.ai.worker.AIWorker's process."""
    state = table_4p()
    app = CasinoApp(config=config_for(state, level="random"), state=state,
                    settings=Settings(speed="instant"), save_settings_to_disk=False)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(500):
            await pilot.pause(0.02)
            if isinstance(app.screen, GameScreen) and app.screen.settled:
                break
        assert len(state.history) == 3 and game(app).awaiting_human
        chooser = app.chooser()
        assert isinstance(chooser, WorkerChooser)
    assert app._chooser is None  # shut down with the app


@asynctest
async def test_game_over_offers_a_new_game_or_the_title() -> None:
    for key, expected in (("n", [TitleScreen, SetupScreen]), ("t", [TitleScreen])):
        app = make_app(last_play(scores=[15, 18]))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("enter")  # the last card: round summary
            await settle(pilot)
            assert isinstance(app.screen, RoundSummaryScreen)
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, GameOverScreen)
            assert app.screen.data.winner == "South"
            await pilot.press(key)
            await settle(pilot)
            assert [type(s) for s in app.screen_stack] == expected
