"""Pilot tests of the mouse (and touch): every screen that answers clicks, by clicks alone.

Clicks go through Textual's own dispatch (``pilot.click`` on a widget with an offset), so the
hit-testing of the hand, the table and the key bar is what a terminal's (or the browser's)
mouse reports reach."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual import events
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import OptionList

from casino_tui.app.screens.confirm import ConfirmScreen
from casino_tui.app.screens.game import GameScreen
from casino_tui.app.screens.gameover import GameOverScreen
from casino_tui.app.screens.load import LoadScreen
from casino_tui.app.screens.picklist import PickListScreen
from casino_tui.app.screens.privacy import PrivacyScreen
from casino_tui.app.screens.rules import RulesScreen
from casino_tui.app.screens.settings import SettingsScreen
from casino_tui.app.screens.setup import SetupScreen
from casino_tui.app.screens.summary import RoundSummaryScreen
from casino_tui.app.screens.title import TitleScreen
from casino_tui.app.widgets.cycler import Cycler
from casino_tui.app.widgets.table import HandView, KeyBar, LogView, TableView
from casino_tui.table import GameConfig, default_seats

from .conftest import asynctest, make_app, settle
from .positions import cards, position, table_2p
from .test_saves_ui import EXAMPLES

SIZES = ((80, 24), (120, 40))  # small cards, big cards


def game(pilot: Pilot[None]) -> GameScreen:
    screen = pilot.app.screen
    assert isinstance(screen, GameScreen)
    return screen


async def click_card(pilot: Pilot[None], index: int) -> None:
    """Click the middle of card ``index`` of the hand (at any card size)."""
    hand = pilot.app.screen.query_one("#hand", HandView)
    width = hand.card_width()
    x = 1 + index * (width + 1) + width // 2
    left, top = hand.gutter.top_left
    assert hand.card_at(x, 1) == index
    await pilot.click(hand, offset=(left + x, top + hand.size.height // 2))
    await settle(pilot)


async def click_pile(pilot: Pilot[None], index: int) -> None:
    table = pilot.app.screen.query_one("#table", TableView)
    place = table.pile_place(index)
    assert place is not None
    assert table.pile_at(*place) == index
    await pilot.click(table, offset=place)
    await settle(pilot)


async def click_key(pilot: Pilot[None], bar: str, key: str) -> None:
    """Click the piece of the key bar ``bar`` that presses ``key``."""
    widget = pilot.app.screen.query_one(bar, KeyBar)
    x = next((x for x in range(widget.size.width) if widget.key_at(x) == key), None)
    assert x is not None, f"no {key} in the key bar"
    await pilot.click(widget, offset=(x, 0))
    await settle(pilot)


async def wheel(pilot: Pilot[None], widget: Widget, up: bool, times: int = 1) -> None:
    """Turn the mouse wheel over ``widget`` (the pilot has no wheel of its own: its mouse
    helper posts the events through the screen as a click's are)."""
    kind = events.MouseScrollUp if up else events.MouseScrollDown
    for _ in range(times):
        await pilot._post_mouse_events([kind], widget, offset=(2, 2))


@asynctest
async def test_a_click_chooses_a_card_and_a_second_click_plays_it() -> None:
    for size in SIZES:
        app = make_app(table_2p())
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            screen = game(pilot)
            assert screen.big_cards == (1 if size == (120, 40) else 0)
            await click_card(pilot, 3)  # A♥
            assert screen._card_i == 3
            move = screen.current_move
            assert move is not None
            assert len(screen.state.history) == 0
            assert "again" in screen.query_one("#message-line").data.text
            await click_card(pilot, 3)  # again: plays the previewed move
            assert len(screen.state.history) >= 1
            assert screen.state.history[0] == move


@asynctest
async def test_the_first_click_on_the_chosen_card_only_chooses_it() -> None:
    """Card 1 is chosen when the turn begins: a single click on it plays nothing."""
    app = make_app(table_2p())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = game(pilot)
        await click_card(pilot, 0)
        assert screen._card_i == 0
        assert not screen.state.history
        await click_card(pilot, 0)
        assert screen.state.history


@asynctest
async def test_a_click_on_a_pile_selects_it_as_space_does() -> None:
    for size in SIZES:
        app = make_app(table_2p())
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            screen = game(pilot)
            await click_card(pilot, 1)  # 9♠
            await click_pile(pilot, 4)  # North's build of 9
            assert screen._selection == {4}
            move = screen.current_move
            assert move is not None and move.kind == "capture" and move.piles == (4,)
            await click_pile(pilot, 0)  # 3♣ too: no move takes both with 9♠
            assert screen._selection == {0, 4}
            assert screen.current_move is None
            await click_pile(pilot, 0)  # out of the selection again
            assert screen._selection == {4}
            await click_card(pilot, 1)  # the chosen card: plays the capture
            assert screen.state.history[0] == move


@asynctest
async def test_the_key_bar_plays() -> None:
    for size in SIZES:
        app = make_app(table_2p())
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            screen = game(pilot)
            move = screen.current_move
            await click_key(pilot, "#keys", "enter")  # the visible Play control
            assert screen.state.history[0] == move


@asynctest
async def test_a_click_in_the_move_list_plays_that_move() -> None:
    app = make_app(table_2p())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = game(pilot)
        await click_key(pilot, "#keys", "m")
        picklist = app.screen
        assert isinstance(picklist, PickListScreen)
        options = picklist.query_one(OptionList)
        third = picklist.items[2][0]
        left, top = options.gutter.top_left
        await pilot.click(options, offset=(left + 4, top + 2))  # the third line: one a move
        await settle(pilot)
        assert app.screen is screen
        assert screen.state.history[0] == third


@asynctest
async def test_the_wheel_scrolls_the_log_back_and_forth() -> None:
    app = make_app(table_2p())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = game(pilot)
        for i in range(30):
            screen.session.add_note(f"note {i}")
        screen._refresh_log()
        await pilot.pause()
        log = screen.query_one("#log", LogView)
        newest = str(log.render()).splitlines()[-1]
        assert newest == "note 29"
        await wheel(pilot, log, up=True, times=2)
        assert log.back == 2 * LogView.SCROLL_LINES
        assert str(log.render()).splitlines()[-1] == "note 23"
        assert "newer" in str(log.border_subtitle)
        await wheel(pilot, log, up=True, times=12)  # stops at the oldest line
        assert str(log.render()).splitlines()[0] == "Round 2: North deals"
        await wheel(pilot, log, up=False, times=12)
        assert log.back == 0
        assert str(log.render()).splitlines()[-1] == "note 29"
        assert log.border_subtitle == log.hint  # back at the newest: 'l: in full'


# ---------------------------------------------------------------------------- other screens


def find_text(widget: Widget, text: str) -> tuple[int, int]:
    """Where ``text`` is drawn in ``widget``: an offset from its top left (its border and
    padding included), as the screen shows it (alignment and all)."""
    left, top = widget.gutter.top_left
    for y in range(widget.size.height):
        line = widget.render_line(y).text
        x = line.find(text)
        if x >= 0:
            return left + x + len(text) // 2, top + y
    raise AssertionError(f"{text!r} is not drawn in {widget}")


async def click_text(pilot: Pilot[None], selector: str, text: str) -> None:
    widget = pilot.app.screen.query_one(selector)
    await pilot.click(widget, offset=find_text(widget, text))
    await settle(pilot)


async def click_option(pilot: Pilot[None], selector: str, text: str) -> None:
    """Click the line of an option list that shows ``text``."""
    await click_text(pilot, selector, text)


@asynctest
async def test_title_entries_answer_clicks() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await click_option(pilot, "#title-menu", "Rules")
        assert isinstance(app.screen, RulesScreen)
        await click_text(pilot, ".dialog-keys", "Esc close")
        assert isinstance(app.screen, TitleScreen)
        await click_option(pilot, "#title-menu", "New game")
        assert isinstance(app.screen, SetupScreen)
        await click_text(pilot, ".dialog-keys", "Esc back")
        assert isinstance(app.screen, TitleScreen)
        await click_text(pilot, "#title-keys", "? help")
        assert type(app.screen).__name__ == "HelpScreen"
        await click_text(pilot, ".dialog-keys", "Esc closes")
        assert isinstance(app.screen, TitleScreen)
        await click_option(pilot, "#title-menu", "Quit")
    assert app.return_code == 0


@asynctest
async def test_settings_answer_clicks() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await click_option(pilot, "#title-menu", "Settings")
        assert isinstance(app.screen, SettingsScreen)
        cards = app.screen.query_one("#set-cards", Cycler)
        speed = app.screen.query_one("#set-speed", Cycler)
        assert cards.value == "unicode"
        await click_text(pilot, "#set-cards", "▸")
        assert cards.value == "ascii"
        await click_text(pilot, "#set-cards", "◂")
        await click_text(pilot, "#set-cards", "◂")
        assert cards.value == "ascii"  # two choices: back twice is where it was
        before = speed.value
        await click_text(pilot, "#set-speed", "▸")
        assert speed.value != before
        await click_text(pilot, ".dialog-keys", "Enter save")
        assert not isinstance(app.screen, SettingsScreen)
        assert app.settings.card_style == "ascii"
        assert app.settings.speed == speed.value


@asynctest
async def test_a_dialogs_buttons_answer_clicks() -> None:
    """Leaving the game asks first: No by a click stays, Yes by a click leaves."""
    app = make_app(table_2p())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await click_key(pilot, "#keys", "q")
        assert isinstance(app.screen, ConfirmScreen)
        await click_text(pilot, ".dialog-keys", "Esc no")
        assert isinstance(app.screen, GameScreen)
        await click_key(pilot, "#keys", "q")
        await click_text(pilot, ".dialog-keys", "Enter yes")
        assert isinstance(app.screen, TitleScreen)


@asynctest
async def test_the_load_screen_answers_clicks(tmp_path: Path) -> None:
    games = tmp_path / "data" / "games"  # the test's data directory (conftest)
    games.mkdir(parents=True)
    for name in ("mid-round-builds.json", "finished-game.json"):
        shutil.copy(EXAMPLES / name, games / name)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await click_option(pilot, "#title-menu", "Load game")
        screen = app.screen
        assert isinstance(screen, LoadScreen)
        assert len(screen.entries) == 2
        await click_text(pilot, "#load-keys", "d delete")  # asks first: No keeps it
        assert isinstance(app.screen, ConfirmScreen)
        await click_text(pilot, ".dialog-keys", "Esc no")
        assert app.screen is screen
        assert len(screen.entries) == 2
        unfinished = next(e for e in screen.entries if not e.finished)
        await click_option(pilot, "#load-list", unfinished.title)  # a click opens it
        assert isinstance(app.screen, GameScreen)
        assert app.screen.slot is not None


async def play_by_clicks(pilot: Pilot[None], limit: int = 800) -> dict[str, int]:
    """From the title screen to game over by clicks alone: New game, Start, a card twice for
    every move (the next card when one has no move), the summary's and privacy screens'
    own controls."""
    app = pilot.app
    seen = {"moves": 0, "summaries": 0, "privacy": 0}
    await settle(pilot)
    await click_option(pilot, "#title-menu", "New game")
    await click_text(pilot, ".dialog-keys", "Enter start")
    for _ in range(limit):
        await settle(pilot)
        screen = app.screen
        if isinstance(screen, GameOverScreen):
            return seen
        if isinstance(screen, PrivacyScreen):
            seen["privacy"] += 1
            await pilot.click(screen, offset=(1, 1))
        elif isinstance(screen, RoundSummaryScreen):
            seen["summaries"] += 1
            await click_text(pilot, ".dialog-keys", "Enter:")
        else:
            assert isinstance(screen, GameScreen), screen
            assert screen.awaiting_human
            index = screen._card_i
            if screen.current_move is None:  # this card cannot be played: the next one
                await click_card(pilot, (index + 1) % len(screen._hand()))
                continue
            played = len(screen.session.log)
            await click_card(pilot, index)
            if len(screen.session.log) == played:
                await click_card(pilot, index)
            seen["moves"] += 1
    raise AssertionError("the game did not end")


@asynctest
async def test_a_whole_game_by_clicks_alone() -> None:
    """Against the computer, with big cards, then back to the title by the game-over
    screen's own control."""
    config = GameConfig(preset="classic", players=2, seats=default_seats(2, 1), target=1,
                        seed=5)
    app = make_app(config=config)
    async with app.run_test(size=(120, 40)) as pilot:
        seen = await play_by_clicks(pilot)
        game_screen = next(s for s in app.screen_stack if isinstance(s, GameScreen))
        assert game_screen.session.state.is_game_over
        assert seen["moves"] >= 10
        assert seen["summaries"] == game_screen.session.state.round_no
        await click_text(pilot, ".dialog-keys", "t title screen")
        assert isinstance(app.screen, TitleScreen)


@asynctest
async def test_big_cards_give_way_to_small_ones_when_they_do_not_fit() -> None:
    """A table of 36 piles at 120x40 goes back to the small faces (and clicks still find
    its piles); the level follows the terminal's size as it changes."""
    crowded = position("classic", 2, table=cards(
        "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH "
        "AD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD"),
        hands=["AC 2C 3C 4C", "5C 6C 7C 8C"], to_move=0, dealer=1, stock=0)
    app = make_app(crowded)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = game(pilot)
        assert screen.big_cards == 1
        table = screen.query_one("#table", TableView)
        assert all(height == 1 for *_, height in table._places)  # small faces
        assert screen.query_one("#hand", HandView).card_width() == 7  # the hand fits
        await click_pile(pilot, 20)
        assert screen._selection == {20}
        await pilot.resize_terminal(160, 50)
        await settle(pilot)
        assert screen.big_cards == 2
        assert screen.query_one("#hand", HandView).card_width() == 9
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert screen.big_cards == 0
        assert screen.query_one("#hand", HandView).card_width() == 5


@asynctest
async def test_a_tap_hides_the_privacy_screen() -> None:
    """Two people at one keyboard: the screen hiding the hand goes away with a tap."""
    app = make_app(table_2p(), humans=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, PrivacyScreen)
        await pilot.click(app.screen, offset=(1, 1))
        await settle(pilot)
        screen = game(pilot)
        assert screen.query_one("#hand", HandView).data.cards == screen._hand()
