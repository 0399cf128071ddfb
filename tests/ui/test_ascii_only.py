"""ASCII-only terminals (``LC_ALL=C PYTHONUTF8=0``, ``PYTHONIOENCODING=ascii``, ``--ascii``):
every screen is drawn in ASCII, borders, separators, arrows and suits included, and every
symbol the app (or Textual, or Rich) draws has a stand-in of one cell."""

from __future__ import annotations

import html
import io
import re
import shutil
import tokenize
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from casino_tui.app.app import CasinoApp
from casino_tui.app.glyphs import (
    ASCII_GLYPHS,
    AsciiFilter,
    encoding_shows,
    output_needs_ascii,
    to_ascii,
)
from casino_tui.app.screens.confirm import ConfirmScreen
from casino_tui.app.screens.game import GameScreen
from casino_tui.app.screens.gameover import GameOverScreen
from casino_tui.app.screens.help import HelpScreen
from casino_tui.app.screens.load import LoadScreen
from casino_tui.app.screens.name import NameScreen
from casino_tui.app.screens.picklist import PickListScreen
from casino_tui.app.screens.privacy import PrivacyScreen
from casino_tui.app.screens.rules import RulesScreen
from casino_tui.app.screens.settings import SettingsScreen
from casino_tui.app.screens.setup import SetupScreen
from casino_tui.app.screens.summary import RoundSummaryScreen
from casino_tui.app.screens.title import TitleScreen
from casino_tui.app.screens.toosmall import TooSmallScreen

from .conftest import asynctest, make_app, settle
from .positions import last_play, table_2p, table_4p

ROOT = Path(__file__).resolve().parents[2]


def screen_text(app: CasinoApp) -> str:
    """Everything on the screen (notifications included), as plain text."""
    svg = app.export_screenshot()
    return html.unescape("".join(re.findall(r"<text[^>]*>(.*?)</text>", svg))).replace(
        "\xa0", " ")


class _Stream:
    def __init__(self, encoding: str | None) -> None:
        self.encoding = encoding


def test_the_output_encoding_decides() -> None:
    assert not output_needs_ascii([_Stream("utf-8"), _Stream("UTF-8")])
    assert output_needs_ascii([_Stream("ascii"), _Stream("ascii")])  # LC_ALL=C PYTHONUTF8=0
    assert output_needs_ascii([_Stream("utf-8"), _Stream("latin-1")])  # either stream
    assert output_needs_ascii([_Stream("cp437")])  # box drawing but no rounded corners
    assert encoding_shows("utf-16") and not encoding_shows("no-such-codec")
    assert not encoding_shows(None)


def test_stand_ins_keep_every_cell() -> None:
    assert to_ascii("╭─ North · medium ─╮") == "+- North - medium -+"
    assert to_ascii("↑↓ choose · ←→ change") == "^v choose - <> change"
    assert to_ascii("┏━┓┃┗┛") == "+-+|++"
    assert to_ascii("10♦ J♠ “x” …") == "10D JS \"x\" ."
    unknown: set[str] = set()
    # a wide character keeps its two cells; an accent falls; a combining mark takes none
    assert to_ascii("José 李 e\u0301", unknown) == "Jose ?? e"
    assert unknown == {"李"}
    for ch, sub in ASCII_GLYPHS.items():
        assert len(sub) == 1 and sub.isascii() and sub.isprintable(), ch


def _string_chars(path: Path) -> set[str]:
    found: set[str] = set()
    with path.open("rb") as f:
        for tok in tokenize.tokenize(f.readline):
            if tok.type == tokenize.STRING:
                found.update(ch for ch in tok.string if not ch.isascii())
    return found


def test_every_symbol_in_the_sources_has_a_stand_in() -> None:
    """Each non-ASCII character in the package's strings and style sheets is a symbol with a
    stand-in, or a letter (its stand-in is the letter without its accent)."""
    missing: dict[str, list[str]] = {}
    sources = sorted((ROOT / "casino_tui").rglob("*.py"))
    for path in [*sources, *sorted((ROOT / "styles").glob("*.tcss"))]:
        chars = (_string_chars(path) if path.suffix == ".py"
                 else {ch for ch in path.read_text(encoding="utf-8") if not ch.isascii()})
        for ch in chars:
            if ch not in ASCII_GLYPHS and not unicodedata.category(ch).startswith("L"):
                missing.setdefault(ch, []).append(path.name)
    assert not missing, missing


def _check(app: CasinoApp, expected: type, where: str) -> str:
    assert isinstance(app.screen, expected), (where, app.screen)
    text = screen_text(app)
    bad = sorted({ch for ch in text if not ch.isascii()})
    assert not bad, f"{where}: {bad}"
    flt = app._ascii_filter
    assert isinstance(flt, AsciiFilter)
    assert not flt.unknown, f"{where}: no stand-in for {sorted(flt.unknown)}"
    return text


async def _keys(pilot: Pilot[None], *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


def test_unicode_is_drawn_without_ascii_only() -> None:
    """The check below can fail: the same screens have box drawing and symbols otherwise."""
    @asynctest
    async def run() -> None:
        app = make_app(table_2p())
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            text = screen_text(app)
            assert "╭" in text and "·" in text and app._ascii_filter is None

    run()


@asynctest
async def test_title_setup_load_rules_and_settings_in_ascii(tmp_path: Path) -> None:
    games = tmp_path / "data" / "games"
    games.mkdir(parents=True)
    for f in (ROOT / "saves").glob("*.json"):
        shutil.copy(f, games / f.name)
    app = make_app(ascii_only=True)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        text = _check(app, TitleScreen, "title")
        assert "+-----" in text and "^v choose - Enter select" in text
        assert "S  H  D  C" in text and "/ __|" in text  # the ASCII logo
        for keys, screen in ((("s",), SettingsScreen), (("down", "right"), SettingsScreen),
                             (("escape", "r"), RulesScreen), (("right",), RulesScreen),
                             (("escape", "l"), LoadScreen), (("r",), NameScreen),
                             (("escape", "d"), ConfirmScreen), (("escape", "escape", "n"),
                                                                SetupScreen),
                             (("space",), PickListScreen), (("escape",), SetupScreen)):
            await _keys(pilot, *keys)
            _check(app, screen, "+".join(keys))
        await _keys(pilot, "escape", "c")  # continue the latest saved game
        text = _check(app, GameScreen, "continued game")
        assert "+- Table -" in text


@asynctest
async def test_the_table_and_its_dialogs_in_ascii() -> None:
    app = make_app(table_2p(), ascii_only=True)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        text = _check(app, GameScreen, "table")
        assert "+- Your hand - South -" in text
        # the chosen card's frame stands out from the others, in ASCII
        assert "#1==#" in text and "# 8C#" in text and "+2--+" in text, text
        steps: tuple[tuple[tuple[str, ...], type], ...] = (
            (("4", "down", "down"), GameScreen),  # a previewed build
            (("2", "space", "tab", "space", "tab", "space", "enter"), GameScreen),  # refused
            (("escape", "m"), PickListScreen), (("escape", "h"), GameScreen),
            (("question_mark",), HelpScreen), (("escape", "r"), RulesScreen),
            (("escape", "o"), SettingsScreen), (("escape", "ctrl+s"), NameScreen),
            (("escape", "q"), ConfirmScreen), (("escape",), GameScreen))
        for keys, screen in steps:
            await _keys(pilot, *keys)
            _check(app, screen, "+".join(keys))
        await pilot.resize_terminal(50, 15)
        await settle(pilot)
        _check(app, TooSmallScreen, "too small")


@pytest.mark.parametrize("humans", [1, 2])
def test_four_players_and_two_people_in_ascii(humans: int) -> None:
    @asynctest
    async def run() -> None:
        app = make_app(table_4p() if humans == 1 else table_2p(), humans=humans,
                       ascii_only=True)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            _check(app, GameScreen if humans == 1 else PrivacyScreen, f"{humans} people")

    run()


@asynctest
async def test_round_summary_and_game_over_in_ascii() -> None:
    app = make_app(last_play(scores=[15, 18]), ascii_only=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _keys(pilot, "enter")
        _check(app, RoundSummaryScreen, "round summary")
        await _keys(pilot, "enter")
        text = _check(app, GameOverScreen, "game over")
        assert "* South" in text  # the winner's star


def test_ascii_only_forces_ascii_cards() -> None:
    app: Any = make_app(ascii_only=True)
    assert app.force_ascii and not app.painter.symbols and app.painter.ascii_only
    assert make_app(ascii=True)._ascii_filter is None  # --ascii cards alone: a test hook


def test_ascii_help_text() -> None:
    from casino_tui.__main__ import build_parser

    out = io.StringIO()
    build_parser().print_help(out)
    assert "plain ASCII" in out.getvalue()
