"""Pilot tests: whole games by keys alone, and the table's keys one by one."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from casino_tui.app.app import CasinoApp
from casino_tui.app.screens.game import GameScreen
from casino_tui.app.screens.gameover import GameOverScreen
from casino_tui.app.screens.privacy import PrivacyScreen
from casino_tui.app.screens.summary import RoundSummaryScreen
from casino_tui.app.screens.title import TitleScreen
from casino_tui.table import GameConfig, default_seats

from .conftest import asynctest, make_app, settle


async def play_by_keys(pilot: Pilot[None], limit: int = 800) -> dict[str, int]:
    """From the title screen: Enter, Enter, then Enter for every move and summary (and a key
    for every privacy screen) until the game is over. Returns how many of each were seen."""
    app = pilot.app
    seen = {"moves": 0, "summaries": 0, "privacy": 0}
    await pilot.press("enter")  # title: New game
    await pilot.press("enter")  # setup: start
    for _ in range(limit):
        await settle(pilot)
        screen = app.screen
        if isinstance(screen, GameOverScreen):
            return seen
        if isinstance(screen, PrivacyScreen):
            seen["privacy"] += 1
            await pilot.press("space")
        elif isinstance(screen, RoundSummaryScreen):
            seen["summaries"] += 1
            await pilot.press("enter")
        else:
            assert isinstance(screen, GameScreen), screen
            assert screen.awaiting_human
            if screen.current_move is None:  # this card cannot be played: take the next
                await pilot.press("right")
                continue
            seen["moves"] += 1
            await pilot.press("enter")
    raise AssertionError("the game did not end")


GAMES = [
    pytest.param("classic", 2, 1, id="classic-2p"),
    pytest.param("classic", 4, 2, id="classic-4p-hotseat"),
    pytest.param("pluck_cassino", 2, 1, id="pluck-2p"),
    pytest.param("call_out_21", 2, 1, id="callout-2p"),
    pytest.param("royal_cassino", 4, 1, id="royal-4p"),
]


@pytest.mark.parametrize(("preset", "players", "humans"), GAMES)
@asynctest
async def test_whole_game_by_keys(preset: str, players: int, humans: int) -> None:
    config = GameConfig(preset=preset, players=players, seats=default_seats(players, humans),
                        target=1, seed=5)
    app = make_app(config=config)
    async with app.run_test(size=(80, 24)) as pilot:
        seen = await play_by_keys(pilot)
        screen = app.screen
        assert isinstance(screen, GameOverScreen)
        game = next(s for s in app.screen_stack if isinstance(s, GameScreen))
        state = game.session.state
        assert state.is_game_over
        assert screen.data.scores == tuple(state.scores)
        if state.winner is not None:
            assert screen.data.winner == game.session.side_names[state.winner]
        assert seen["summaries"] == state.round_no
        assert seen["moves"] >= 10
        if humans >= 2:
            assert seen["privacy"] >= seen["moves"] // 2
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, TitleScreen)


@asynctest
async def test_title_enter_enter_starts_classic_against_one_computer() -> None:
    app: CasinoApp = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        session = screen.session
        assert session.rules.preset_name == "classic"
        assert session.num_players == 2
        assert [s.human for s in session.config.seats] == [True, False]


@asynctest
async def test_a_computers_move_and_the_players_turn_after_it_are_drawn_in_one_frame() -> None:
    """Every frame costs the game CPU (at 200 players on a server, what the cores are spent
    on): the player's turn begins in the same call that shows the computer's move, not in a
    callback after it (which a computer thinking in its worker process let a frame come
    between), so the two are drawn together; likewise the computer's turn begins in the call
    that shows the player's move (the table is drawn once for both). Only the computer's
    answer comes in a callback, so a chain of computers stays flat."""
    from .positions import table_2p

    app = make_app(table_2p())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.awaiting_human
        later: list[str] = []
        call_later = screen.call_later

        def recorded(callback: Any, *args: Any, **kwargs: Any) -> bool:
            later.append(getattr(callback, "__name__", ""))
            return call_later(callback, *args, **kwargs)

        screen.call_later = recorded  # type: ignore[method-assign]
        played = len(screen.session.log)
        await pilot.press("enter")  # South plays; North (the computer) answers
        await settle(pilot)
        assert screen.awaiting_human and len(screen.session.log) > played + 1
        # South's move: North's turn began at once; North's answer: a callback; South's turn
        # after it began at once
        assert "_advance" not in later and later.count("_computer_done") == 1, later
