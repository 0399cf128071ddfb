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


# ---------------------------------------------------------------- the rules built from what was
A_CSS = "Alpha { color: red; } Beta { color: blue; }"
B_CSS = "Beta { background: green; } Alpha Beta { width: 3; }"
C_CSS = "Gamma { height: 2; } Alpha { margin: 1; }"


def _textuals(sources: list[tuple[str, tuple[str, str], int]]) -> tuple[list[Any], Any]:
    """Textual's own stylesheet from ``sources`` (css, where, tie breaker) in order: its
    rules and its map of selector names to rules, as reprs (another parse's rules are other
    objects)."""
    from textual.css.stylesheet import Stylesheet

    sheet = Stylesheet()
    for css, where, tie in sources:
        sheet.add_source(css, read_from=where, is_default_css=True, tie_breaker=tie)
    return ([repr(r) for r in sheet.rules],
            {name: [repr(r) for r in rules] for name, rules in sheet.rules_map.items()})


def _ours(sheet: sharedcss.SharedStylesheet) -> tuple[list[Any], Any]:
    return ([repr(r) for r in sheet.rules],
            {name: [repr(r) for r in rules] for name, rules in sheet.rules_map.items()})


def test_sources_added_later_extend_the_rules_as_textuals_full_build_orders_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A widget class shown for the first time adds its CSS: its rules go after those
    already built (Textual built them all again, from every source); the rules and the map
    are Textual's, in its order, and the sources built before are not built again."""
    sheet = sharedcss.SharedStylesheet()
    sheet.add_source(A_CSS, read_from=("a.py", "A.DEFAULT_CSS"), is_default_css=True)
    assert _ours(sheet) == _textuals([(A_CSS, ("a.py", "A.DEFAULT_CSS"), 0)])
    before = sheet.rules
    built: list[str] = []
    parse_rules = sharedcss.SharedStylesheet._parse_rules

    def counting(self: Any, css: str, read_from: Any, *args: Any, **kw: Any) -> Any:
        built.append(read_from[1])
        return parse_rules(self, css, read_from, *args, **kw)

    monkeypatch.setattr(sharedcss.SharedStylesheet, "_parse_rules", counting)
    sheet.add_source(B_CSS, read_from=("b.py", "B.DEFAULT_CSS"), is_default_css=True)
    sheet.add_source(C_CSS, read_from=("c.py", "C.DEFAULT_CSS"), is_default_css=True)
    assert _ours(sheet) == _textuals([(A_CSS, ("a.py", "A.DEFAULT_CSS"), 0),
                                      (B_CSS, ("b.py", "B.DEFAULT_CSS"), 0),
                                      (C_CSS, ("c.py", "C.DEFAULT_CSS"), 0)])
    assert built == ["B.DEFAULT_CSS", "C.DEFAULT_CSS"]
    assert len(before) == 2 and sheet.rules[:2] == before  # (the same rules, kept)


def test_a_source_changed_since_the_last_build_builds_all_again_as_from_textual() -> None:
    """A source whose tie breaker was lowered (a widget class whose bases' CSS the app had,
    further from it: Textual updates the source and builds it again at the next build) is
    not a source added at the end: all is built again, as Textual builds it."""
    sheet = sharedcss.SharedStylesheet()
    sheet.add_source(A_CSS, read_from=("a.py", "A.DEFAULT_CSS"), is_default_css=True,
                     tie_breaker=-1)
    sheet.add_source(B_CSS, read_from=("b.py", "B.DEFAULT_CSS"), is_default_css=True)
    assert len(sheet.rules_map["Beta"]) == 3
    sheet.add_source(A_CSS, read_from=("a.py", "A.DEFAULT_CSS"), is_default_css=True,
                     tie_breaker=-2)  # (lowered: no build yet, as from Textual)
    sheet.add_source(C_CSS, read_from=("c.py", "C.DEFAULT_CSS"), is_default_css=True)
    expected = _textuals([(A_CSS, ("a.py", "A.DEFAULT_CSS"), -2),
                          (B_CSS, ("b.py", "B.DEFAULT_CSS"), 0),
                          (C_CSS, ("c.py", "C.DEFAULT_CSS"), 0)])
    assert _ours(sheet) == expected
    assert all(r.tie_breaker == -2 for r in sheet.rules[:2])


def test_an_added_source_with_an_error_fails_as_from_textual_and_is_left_out() -> None:
    """CSS with an error raises Textual's error; the stylesheet is built without it next
    time, as Textual's is (it keeps the invalid CSS apart)."""
    from textual.css.stylesheet import StylesheetParseError

    sheet = sharedcss.SharedStylesheet()
    sheet.add_source(A_CSS, read_from=("a.py", "A.DEFAULT_CSS"), is_default_css=True)
    assert len(sheet.rules) == 2
    sheet.add_source("Delta { colour: red; }", read_from=("d.py", "D.DEFAULT_CSS"),
                     is_default_css=True)
    with pytest.raises(StylesheetParseError):
        sheet.parse()
    sheet.add_source(C_CSS, read_from=("c.py", "C.DEFAULT_CSS"), is_default_css=True)
    assert _ours(sheet) == _textuals([(A_CSS, ("a.py", "A.DEFAULT_CSS"), 0),
                                      (C_CSS, ("c.py", "C.DEFAULT_CSS"), 0)])


@asynctest
async def test_the_summarys_widgets_extend_the_apps_rules_and_style_as_a_full_build(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The round's summary adds its widgets' CSS as it comes (a scroll container's): built
    onto the rules the app had; every node of the summary and of the table under it has the
    styles a stylesheet built in full gives it."""
    from textual.css.stylesheet import Stylesheet

    from .positions import last_play

    full: list[Any] = []  # (each stylesheet built in full)
    parse = Stylesheet.parse

    def full_build(self: Any) -> None:
        full.append(self)
        parse(self)

    monkeypatch.setattr(Stylesheet, "parse", full_build)
    app = make_app(last_play())
    async with app.run_test(size=(100, 30), tooltips=True, notifications=True) as pilot:
        await settle(pilot)
        full.clear()
        await pilot.press("enter")
        await settle(pilot)
        assert type(app.screen).__name__ == "RoundSummaryScreen"
        assert isinstance(app.stylesheet, sharedcss.SharedStylesheet)
        # (the dialog's own CSS changes tie breakers of the screens' CSS: built in full once;
        # its scroll container's CSS, added after, extends that)
        assert full.count(app.stylesheet) == 1, full
        sources = list(app.stylesheet.source.items())
        fresh = Stylesheet(variables=app.stylesheet._variables)
        for where, (css, defaults, tie, scope) in sources:
            fresh.add_source(css, read_from=where, is_default_css=defaults, tie_breaker=tie,
                             scope=scope)
        assert [repr(r) for r in app.stylesheet.rules] == [repr(r) for r in fresh.rules]
        for screen in app.screen_stack:
            for node in screen.walk_children(with_self=True):
                kept = dict(node.styles.base._rules)
                fresh.apply(node)
                assert dict(node.styles.base._rules) == kept, node
