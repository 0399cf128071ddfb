"""The title as the app starts (casino_tui/app/screens/title.py, CasinoApp.on_resize): laid
out as few times as Textual allows, with the breakpoint classes of its size from the first
frame, and laid out again on a real resize."""

from __future__ import annotations

from typing import Any

import pytest
from textual._compositor import Compositor
from textual.screen import Screen

from casino_tui.app.screens.title import TitleScreen

from .conftest import asynctest, make_app, settle


@pytest.fixture
def layouts(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[int, int]]]:
    """Each layout of a screen (Textual arranges every widget again, then draws what moved):
    the screen's class and its size."""
    seen: list[tuple[str, tuple[int, int]]] = []
    layout = Screen._refresh_layout

    def counting(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
        layout(self, *args, **kwargs)
        seen.append((type(self).__name__, tuple(self.size)))  # type: ignore[arg-type]

    monkeypatch.setattr(Screen, "_refresh_layout", counting)
    return seen


@asynctest
async def test_the_title_is_laid_out_twice_as_it_starts_not_five_times(
        layouts: list[tuple[str, tuple[int, int]]]) -> None:
    """Textual sent the first screen three resizes to the size it had already laid it out
    at (the app's size as it starts, twice, once from the driver, and the screen's own region
    once laid out), each laid out and drawn whole again after the first frame; what is left
    is the first frame's layout and Textual's own once the menu knows its height."""
    app = make_app(None)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.pause(0.2)
        assert isinstance(app.screen, TitleScreen)
        assert layouts == [("TitleScreen", (100, 30))] * 2
        assert app.screen.has_class("-narrow") and not app.screen.has_class("-wide")


@asynctest
async def test_the_title_has_its_breakpoint_class_in_its_first_frame(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[set[str]] = []
    whole = Compositor.render_full_update

    def looking(self: Compositor, *args: Any, **kwargs: Any) -> Any:
        seen.append(set(self.root.classes) if self.root is not None else set())
        return whole(self, *args, **kwargs)

    monkeypatch.setattr(Compositor, "render_full_update", looking)
    app = make_app(None)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert seen and all("-wide" in classes and "-narrow" not in classes
                            for classes in seen)


@asynctest
async def test_a_real_resize_lays_the_title_out_again(
        layouts: list[tuple[str, tuple[int, int]]]) -> None:
    app = make_app(None)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        box = app.screen.query_one("#title-menu")
        before = box.region
        layouts.clear()
        await pilot.resize_terminal(130, 40)
        await settle(pilot)
        assert ("TitleScreen", (130, 40)) in layouts
        assert app.screen.has_class("-wide") and not app.screen.has_class("-narrow")
        assert box.region != before and box.region.x > before.x
        await pilot.resize_terminal(100, 30)  # and back: laid out again at the old size
        await settle(pilot)
        assert box.region == before and app.screen.has_class("-narrow")


@asynctest
async def test_the_titles_first_frame_is_drawn_whole_once_not_twice(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual shows a new screen by laying it out and drawing all of it, then asks for all of
    it again in the next refresh: the same frame twice (6 KB more at 100x30 for every login).
    The title draws itself whole once; what changes after (the menu's layout) is still drawn,
    and a later repaint of the whole screen still happens."""
    wholes: list[int] = []
    whole = Compositor.render_full_update

    def counting(self: Compositor, *args: Any, **kwargs: Any) -> Any:
        wholes.append(1)
        return whole(self, *args, **kwargs)

    monkeypatch.setattr(Compositor, "render_full_update", counting)
    app = make_app(None)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.pause(0.2)
        assert isinstance(app.screen, TitleScreen)
        assert len(wholes) == 1
        app.screen.refresh()  # a repaint asked for later is done
        await settle(pilot)
        assert len(wholes) == 2
