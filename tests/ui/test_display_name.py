"""Display names (issue 12): chosen once on a server with tables, kept in the player's settings
(over SSH: their key's), changed on the Settings screen, checked and shown literally."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Input

from casino_tui.app.screens.displayname import DisplayNameScreen, with_display_name
from casino_tui.app.screens.settings import SettingsScreen
from casino_tui.settings import (
    MAX_DISPLAY_NAME,
    Settings,
    clean_display_name,
    load_settings,
    save_settings,
)

from .conftest import asynctest, make_app
from .test_literal_text import CLOSE, screen_text


@pytest.mark.parametrize(("typed", "name"), [
    ("Ann", "Ann"), ("  Zoë  ", "Zoë"), ("[b]x[/b]", "[b]x[/b]"),
    ("[@click=app.quit]", "[@click=app.quit]"),
    ("x" * MAX_DISPLAY_NAME, "x" * MAX_DISPLAY_NAME), ("李小龍", "李小龍"), ("a b", "a b"),
])
def test_valid_display_names(typed: str, name: str) -> None:
    assert clean_display_name(typed) == name


@pytest.mark.parametrize("typed", [
    "", "   ", "x" * (MAX_DISPLAY_NAME + 1), "red\x1b[31m", "a\nb", "tab\there", "bell\x07",
    "c1\x9b31m", "rtl\u202eevil", "zero\u200bwidth", "nbsp\xa0x", "del\x7f",
])
def test_invalid_display_names(typed: str) -> None:
    with pytest.raises(ValueError, match="display name"):
        clean_display_name(typed)


def test_display_name_is_a_setting_on_disk(_config_dir: Path) -> None:
    assert Settings().display_name == ""
    path = save_settings(Settings(display_name="Ann", speed="fast"))
    assert path is not None and json.loads(path.read_text())["display_name"] == "Ann"
    assert load_settings() == Settings(display_name="Ann", speed="fast")
    assert load_settings(_config_dir) == load_settings()  # a player's directory, by name
    # A damaged or hostile name in the file is dropped, the rest kept.
    for bad in ("evil\x1b]0;title\x07", 42, "x" * 50, ""):
        path.write_text(json.dumps({"display_name": bad, "speed": "fast"}))
        assert load_settings() == Settings(speed="fast")


def _field(app: object) -> Input:
    from textual.app import App

    assert isinstance(app, App)
    return app.screen.query_one("#set-name", Input)


@asynctest
async def test_settings_offer_the_display_name_only_with_tables(_config_dir: Path) -> None:
    app = make_app(settings=Settings(display_name="Ann"), save=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        assert isinstance(app.screen, SettingsScreen)
        assert not app.screen.query("#set-name")
        await pilot.press("down", "down", "down", "right", "enter")  # speed: the next one
        assert app.settings.display_name == "Ann"  # kept though not shown
        assert app.settings.speed == "fast"
        assert load_settings().display_name == "Ann"


@asynctest
async def test_settings_change_the_display_name_and_show_it_literally(
        _config_dir: Path) -> None:
    app = make_app(settings=Settings(speed="instant"), save=True, tables=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        assert isinstance(app.screen, SettingsScreen)
        field = _field(app)
        assert field.value == "" and "not chosen yet" in screen_text(app)
        # No name yet and none typed: the other settings save as before.
        await pilot.press("enter")
        assert not isinstance(app.screen, SettingsScreen)
        assert app.settings.display_name == "" and load_settings() == app.settings
        # Typed in the field (markup-like text is just text).
        await pilot.press("s")
        _field(app).focus()
        await pilot.press(*"[b]Zo", "ë", *"[/b]", "enter")
        assert not isinstance(app.screen, SettingsScreen)
        assert app.settings.display_name == "[b]Zoë[/b]"
        assert load_settings().display_name == "[b]Zoë[/b]"
        await pilot.press("s")
        await pilot.pause()
        assert _field(app).value == "[b]Zoë[/b]" and "[b]Zoë[/b]" in screen_text(app)
        # Once chosen it cannot be emptied, and escapes are refused with a reason.
        for bad, reason in (("", "at least one character"), ("a\x1b[2Jb", "control")):
            _field(app).value = bad
            _field(app).focus()
            await pilot.press("enter")
            assert isinstance(app.screen, SettingsScreen)
            assert reason in screen_text(app)
        await pilot.press("escape")
        assert load_settings().display_name == "[b]Zoë[/b]"


@asynctest
async def test_the_name_is_asked_once_then_kept(_config_dir: Path) -> None:
    app = make_app(save=True, tables=True)
    got: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        with_display_name(app, got.append)
        await pilot.pause()
        assert isinstance(app.screen, DisplayNameScreen)
        assert "other players see at your tables" in screen_text(app)
        await pilot.press("escape")  # cancelled: nothing happens
        assert got == [] and app.settings.display_name == ""
        with_display_name(app, got.append)
        await pilot.pause()
        await pilot.press("enter")  # empty: explained, still asking
        assert isinstance(app.screen, DisplayNameScreen)
        assert "at least one character" in screen_text(app)
        await pilot.press(*CLOSE, *"Max", "enter")
        assert got == [f"{CLOSE}Max"] and not isinstance(app.screen, DisplayNameScreen)
        assert load_settings().display_name == f"{CLOSE}Max"
        # The next time it is known: no question.
        with_display_name(app, got.append)
        await pilot.pause()
        assert got == [f"{CLOSE}Max"] * 2 and not isinstance(app.screen, DisplayNameScreen)


@asynctest
async def test_name_screen_refuses_escapes_and_long_names(_config_dir: Path) -> None:
    app = make_app(tables=True)
    results: list[str | None] = []
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(DisplayNameScreen(), results.append)
        await pilot.pause()
        field = app.screen.query_one("#display-name-input", Input)
        await pilot.press(*("y" * (MAX_DISPLAY_NAME + 5)))
        assert field.value == "y" * MAX_DISPLAY_NAME  # the field takes no more
        field.value = "bad\x1b]0;owned\x07"
        await pilot.press("enter")
        assert results == [] and "control characters" in screen_text(app)
        field.value = " Ann "
        await pilot.press("enter")
        assert results == ["Ann"]
