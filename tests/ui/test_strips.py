"""Textual's lines (``Strip``) make their caches when first used (casino_tui/app/strips.py):
a line that is never cropped or styled has none, Textual's operations on lines give the same
results as with its own eager caches, and a ``Strip`` of another make is left alone."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from rich.segment import Segment
from rich.style import Style
from textual.cache import FIFOCache
from textual.strip import Strip

from casino_tui.app import app as app_module
from casino_tui.app import strips
from casino_tui.app.screens.game import GameScreen

from .conftest import make_app, settle
from .positions import table_2p

RED, BOLD = Style(color="red"), Style(bold=True)


def _unset(line: Strip, name: str) -> bool:
    """Whether the slot ``name`` of ``line`` holds nothing (read past ``__getattr__``)."""
    try:
        vars(Strip)[name].__get__(line, Strip)
    except AttributeError:
        return True
    return False


def _eager(segments: list[Segment], cell_length: int | None = None) -> Strip:
    """A line made by Textual's own ``__init__``: every cache made at once."""
    line = Strip.__new__(Strip)
    strips._textual_init(line, segments, cell_length)
    return line


@pytest.fixture
def lazy() -> Iterator[None]:
    assert strips.lazy_strip_caches()
    yield


def test_a_new_line_has_no_cache_until_it_asks_for_one(lazy: None) -> None:
    line = Strip([Segment("hello ", RED), Segment("world", BOLD)])
    assert all(_unset(line, name) for name in strips.STRIP_CACHES)
    cropped = line.crop(1, 8)
    assert line.crop(1, 8) is cropped  # the second crop comes from the cache, as in Textual
    assert not _unset(line, "_crop_cache")
    assert isinstance(line._crop_cache, FIFOCache)
    assert line._crop_cache._maxsize == 16
    others = set(strips.STRIP_CACHES) - {"_crop_cache"}
    assert all(_unset(line, name) for name in others)
    with pytest.raises(AttributeError, match="_no_such_slot"):
        getattr(line, "_no_such_slot")  # noqa: B009  (any other name is still missing)


def test_lines_give_what_textual_gives_with_its_own_caches(lazy: None) -> None:
    segments = [Segment("♠ 10 ", RED), Segment("of spades", BOLD), Segment("  ")]
    for _ in range(2):  # the first time made, the second from the caches
        mine, theirs = Strip(segments, 16), _eager(segments, 16)
        assert mine.crop(2, 9) == theirs.crop(2, 9)
        assert mine.divide([3, 8, 16]) == theirs.divide([3, 8, 16])
        assert mine.apply_style(RED) == theirs.apply_style(RED)
        assert mine.adjust_cell_length(20, BOLD) == theirs.adjust_cell_length(20, BOLD)
        assert mine.crop_extend(1, 18, RED) == theirs.crop_extend(1, 18, RED)
        assert mine.apply_offsets(2, 3) == theirs.apply_offsets(2, 3)
        assert mine.cell_length == theirs.cell_length == 16
        assert mine.text == theirs.text


def test_a_strip_of_another_make_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    init = Strip.__init__
    monkeypatch.setattr(strips, "_init", lambda *a: None)  # not installed yet, as it seems
    monkeypatch.setitem(strips.STRIP_CACHES, "_crop_cache", 32)  # a size Textual does not use
    assert strips.lazy_strip_caches() is False
    assert Strip.__init__ is init


async def _table_picture() -> str:
    app = make_app(table_2p())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, GameScreen)
        await pilot.press("right")
        await settle(pilot)
        return app.export_screenshot()


def test_the_app_draws_the_same_table_with_lazy_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    assert strips.lazy_strip_caches()
    lazy_picture = asyncio.run(_table_picture())
    assert Strip.__init__ is strips._init
    # Textual's own lines, every cache made at once
    monkeypatch.setattr(Strip, "__init__", strips._textual_init)
    monkeypatch.delattr(Strip, "__getattr__")
    monkeypatch.setattr(app_module, "lazy_strip_caches", lambda: False)
    assert asyncio.run(_table_picture()) == lazy_picture
