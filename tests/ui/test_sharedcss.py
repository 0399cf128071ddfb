"""The app's stylesheet parses each CSS source once per process and theme
(casino_tui/app/sharedcss.py): a game forked from the fork server, or a second app in one
process, draws its title and its table without parsing any CSS again (nor making its theme's
variables and their tokens again), and a theme of its own still gets its own colours."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.color import Color
from textual.design import ColorSystem

from casino_tui.app import sharedcss
from casino_tui.app.screens.game import GameScreen
from casino_tui.app.screens.title import TitleScreen
from casino_tui.serve import forkserver
from casino_tui.settings import Settings

from .conftest import asynctest, make_app, settle
from .positions import table_2p


async def _title_then_table(settings: Settings | None = None) -> tuple[Color, Color]:
    """An app (its stylesheet has title.tcss) opening at a game's table (whose screen brings
    game.tcss); the table's background (app.tcss: ``$background``) and its box's border colour
(game.tcss: ``$success``)."""
    app = make_app(table_2p(), settings=settings)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, GameScreen)
        screen = app.screen
        return screen.styles.background, screen.query_one("#table-box").styles.border_top[1]


@asynctest
async def test_a_second_app_parses_no_css(parses: list[str]) -> None:
    first = await _title_then_table()
    assert any("game.tcss" in p for p in parses) and any("title.tcss" in p for p in parses)
    parses.clear()
    assert await _title_then_table() == first
    assert parses == []


@asynctest
async def test_another_theme_is_parsed_with_its_own_colours(parses: list[str]) -> None:
    dark = await _title_then_table(Settings(speed="instant"))
    parses.clear()
    light = await _title_then_table(Settings(speed="instant", theme="textual-light"))
    assert parses  # its variables differ: parsed again, not taken from the dark theme's
    assert light[0] != dark[0]


@asynctest
async def test_a_second_app_generates_no_theme_variables_nor_their_tokens(
        parses: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The theme's colour system and the variables' tokens are made once per process and
    theme too (each was made for every app: the colours twice as it started)."""
    monkeypatch.setattr(sharedcss, "_tokens", {})
    monkeypatch.setattr(sharedcss, "_themes", {})
    made: list[str] = []
    generate, tokenize = ColorSystem.generate, sharedcss.tokenize_values

    def generating(self: ColorSystem) -> dict[str, str]:
        made.append("colours")
        return generate(self)

    def tokenizing(values: dict[str, str]) -> Any:
        made.append("tokens")
        return tokenize(values)

    monkeypatch.setattr(ColorSystem, "generate", generating)
    monkeypatch.setattr(sharedcss, "tokenize_values", tokenizing)
    first = await _title_then_table()
    assert made.count("colours") >= 1 and made.count("tokens") >= 1
    made.clear()
    assert await _title_then_table() == first
    assert made == []
    light = await _title_then_table(Settings(speed="instant", theme="textual-light"))
    assert "colours" in made and "tokens" in made  # another theme: its own
    assert light[0] != first[0]


def test_after_the_fork_servers_warm_up_a_games_title_parses_no_css(
        parses: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fork server's headless title has the tooltip and the notifications' rack that a
    game on a terminal has (a test's app has neither), so a forked game parses no CSS for
    them either."""
    for name in ("HOME", "CASINO_TUI_DATA_DIR", "CASINO_TUI_CONFIG_DIR"):
        monkeypatch.setenv(name, str(tmp_path / name))
    forkserver._warm_up()
    assert parses
    parses.clear()

    async def title() -> None:
        app = make_app(None)
        async with app.run_test(size=(100, 30), tooltips=True, notifications=True) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, TitleScreen)
            app.notify("a toast")
            await settle(pilot)

    asyncio.run(title())
    assert parses == []


def test_after_the_fork_servers_warm_up_a_new_game_parses_no_css(
        parses: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fork server's warm-up shows the New game screen and a new game's table too (``n``,
    Enter, what every player does first), so a forked game parses neither screen's CSS."""
    for name in ("HOME", "CASINO_TUI_DATA_DIR", "CASINO_TUI_CONFIG_DIR"):
        monkeypatch.setenv(name, str(tmp_path / name))
    forkserver._warm_up()
    assert any("setup.tcss" in p for p in parses) and any("game.tcss" in p for p in parses)
    parses.clear()

    async def new_game() -> None:
        app = make_app(None)
        async with app.run_test(size=(100, 30), tooltips=True, notifications=True) as pilot:
            await settle(pilot)
            await pilot.press("n")
            await settle(pilot)
            assert type(app.screen).__name__ == "SetupScreen"
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, GameScreen)

    asyncio.run(new_game())
    assert parses == []
