"""A dialog's dimmed background tints each style once per process (casino_tui/app/tint.py):
every piece of text gets the style Textual's own tint gives it, and the round's summary over
the table is the same picture."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from rich.segment import ControlType, Segment
from rich.style import Style
from textual.color import Color
from textual.renderables.background_screen import BackgroundScreen

from casino_tui.app import tint
from casino_tui.app.screens.summary import RoundSummaryScreen

from .conftest import asynctest, make_app, settle
from .positions import last_play

SEGMENTS = [
    Segment("a", Style(color="red", bgcolor="#102030")),
    Segment("b", None),
    Segment("c", Style(bold=True)),
    Segment("d", Style(color="red", bgcolor="#102030")),  # (seen again)
    Segment("e", Style(color="#abcdef", link="https://example.com")),
    Segment("f", Style.from_meta({"@click": "app.bell"}) + Style(color="blue")),
    Segment("\a", None, [(ControlType.BELL,)]),  # (a control segment)
    Segment("g", Style(bgcolor="green", italic=True)),
]


def _textuals(segments: list[Segment], color: Color) -> list[Segment]:
    return list(tint._installed[0](BackgroundScreen, segments, color))


@pytest.mark.parametrize("color", [Color(0, 0, 0, 0.6), Color(255, 255, 255, 0.3),
                                   Color(10, 20, 30, 0)])
def test_each_piece_of_text_gets_textuals_tint(color: Color) -> None:
    assert tint.memo_tints()
    ours = list(BackgroundScreen.process_segments(SEGMENTS, color))
    again = list(BackgroundScreen.process_segments(SEGMENTS, color))  # (from the memo)
    theirs = _textuals(SEGMENTS, color)
    assert ours == theirs and again == theirs
    # (equal styles compare by hash: the links and the meta are gone from every one)
    assert [(s.style.link, s.style._meta) for s in again if s.style] == \
        [(s.style.link, s.style._meta) for s in theirs if s.style]


def test_a_style_is_tinted_once_per_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    assert tint.memo_tints()
    monkeypatch.setattr(tint, "_tints", {})
    tinted: list[Style | None] = []
    textual = tint._installed[0]

    def counting(cls: Any, segments: list[Segment], color: Color) -> Any:
        tinted.extend(s.style for s in segments)
        return textual(cls, segments, color)

    monkeypatch.setattr(tint, "_installed", [counting, tint._installed[1]])
    color = Color(0, 0, 0, 0.6)
    list(BackgroundScreen.process_segments(SEGMENTS, color))
    list(BackgroundScreen.process_segments(SEGMENTS, color))
    assert len(tinted) == 6  # (six styles, None one of them; the control segment as it is)
    list(BackgroundScreen.process_segments(SEGMENTS, Color(255, 255, 255, 0.3)))
    assert len(tinted) == 12


def test_the_memo_keeps_at_most_its_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    assert tint.memo_tints()
    monkeypatch.setattr(tint, "_tints", {})
    monkeypatch.setattr(tint, "MAX_STYLES", 3)
    monkeypatch.setattr(tint, "MAX_COLORS", 2)
    for alpha in (0.1, 0.2, 0.3):
        list(BackgroundScreen.process_segments(SEGMENTS, Color(0, 0, 0, alpha)))
    assert len(tint._tints) == 2 and all(len(t) <= 3 for t in tint._tints.values())


def test_another_textuals_background_is_left_as_it_is(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert tint.memo_tints()
    monkeypatch.setattr(tint, "_installed", [])
    monkeypatch.setattr(BackgroundScreen, "process_segments", staticmethod(lambda s, c: s))
    assert tint.memo_tints() is False
    assert isinstance(vars(BackgroundScreen)["process_segments"], staticmethod)


def test_textuals_tint_is_the_one_known_here() -> None:
    """The memo relies on Textual's tint of a piece of text depending on its style and the
    colour alone (not its text), through a class method: a Textual that changes it fails
    here (Textual is pinned: see pyproject.toml)."""
    source = inspect.getsource(tint._installed[0])
    assert "def process_segments" in source and source.count("yield") == 4
    assert "text, style, control = segment" in source
    assert "_Segment(" in source and "text," in source
    assert "Style.from_color" in source and "clear_meta_and_links()" in source


@asynctest
async def test_the_summary_over_the_table_is_the_picture_textual_draws(
        monkeypatch: pytest.MonkeyPatch) -> None:
    async def picture() -> str:
        app = make_app(last_play())
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, RoundSummaryScreen)
            return app.export_screenshot()

    ours = await picture()
    assert tint._installed
    monkeypatch.setattr(BackgroundScreen, "process_segments",
                        classmethod(tint._installed[0]))
    monkeypatch.setattr(tint, "memo_tints", lambda: False)
    monkeypatch.setattr("casino_tui.app.app.memo_tints", lambda: False)
    assert await picture() == ours
