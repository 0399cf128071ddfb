"""A game widget whose data changed is given to its screen to draw at once
(``DataWidget._repaint``), not through a message to itself and one from it to the screen, and
the screen is what a full redraw draws; anything else pending (a layout) goes Textual's way."""

from __future__ import annotations

import hashlib
import inspect
from dataclasses import replace

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget

from casino_tui.app.screens.game import GameScreen
from casino_tui.app.widgets.table import LineData, MessageLine, SeatBox

from .conftest import asynctest, make_app, settle
from .positions import table_4p

# Textual's methods DataWidget._repaint does the work of (Textual 8.2.8): if Textual changes
# them, read them again, update _repaint to match, then these digests.
TEXTUAL_METHODS = {
    "Widget.refresh": "b1ce3392c9c00870",
    "Widget._check_refresh": "ad1c8196be9747bf",
    "Screen._on_update": "8d962c0761ddb02e",
}


@pytest.mark.parametrize("name", sorted(TEXTUAL_METHODS))
def test_textuals_refresh_is_the_one_repaint_was_written_against(name: str) -> None:
    owner, method = name.split(".")
    function = inspect.unwrap(getattr({"Widget": Widget, "Screen": Screen}[owner], method))
    digest = hashlib.sha256(inspect.getsource(function).encode()).hexdigest()[:16]
    assert digest == TEXTUAL_METHODS[name]


async def _redrawn_text(pilot: Pilot[None]) -> str:
    """The screen after every widget was drawn again from scratch (Textual's refresh)."""
    for widget in pilot.app.screen.walk_children():
        Widget.refresh(widget)
    await pilot.pause()
    return pilot.app.export_screenshot()


def _shows(pilot: Pilot[None], text: str) -> bool:
    """The screen (Textual's SVG of it) shows ``text``."""
    return text.replace(" ", "&#160;") in pilot.app.export_screenshot()


async def _game(pilot: Pilot[None]) -> GameScreen:
    await settle(pilot)
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, GameScreen)
    return screen


@asynctest
async def test_a_changed_widget_is_given_to_its_screen_at_once() -> None:
    app = make_app(table_4p())
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _game(pilot)
        box = next(b for b in screen.query(SeatBox) if b.data is not None
                   and not b.data.to_move and not b.data.thinking)
        data = box.data
        assert data is not None and not screen._dirty_widgets
        box.set_data(replace(data, taken=data.taken + 4))  # some of its lines
        assert box in screen._dirty_widgets and box._message_queue.empty()
        line = screen.query_one("#message-line", MessageLine)
        line.set_data(LineData("A line drawn whole", "info"))
        line.redraw()  # all of it
        assert line in screen._dirty_widgets and line._message_queue.empty()
        await pilot.pause()
        assert not screen._dirty_widgets  # drawn
        assert _shows(pilot, "A line drawn whole") and _shows(pilot, f"{data.taken + 4}")
        assert app.export_screenshot() == await _redrawn_text(pilot)


@asynctest
async def test_a_hidden_widget_is_not_given_to_the_screen() -> None:
    """As Textual's ``_check_refresh``: a widget not displayed (the save line while saving
    works) is not drawn (given to the screen, it made the compositor map the screen again)."""
    app = make_app(table_4p())
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _game(pilot)
        line = screen.query_one("#save-line", MessageLine)
        assert not line.display
        line.set_data(LineData("not shown", "error"))
        assert line not in screen._dirty_widgets and line._message_queue.empty()
        await pilot.pause()
        assert not _shows(pilot, "not shown")


@asynctest
async def test_a_widget_with_a_layout_pending_goes_textuals_way() -> None:
    app = make_app(table_4p())
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _game(pilot)
        line = screen.query_one("#move-line", MessageLine)
        line.refresh(layout=True)  # (Textual's way: a message to the widget itself)
        assert line._layout_required and not line._message_queue.empty()
        line.set_data(LineData("After a layout", "info"))
        assert line not in screen._dirty_widgets
        await settle(pilot)
        await pilot.pause()
        assert _shows(pilot, "After a layout")
        assert app.export_screenshot() == await _redrawn_text(pilot)
