"""A widget's drawn lines go with it (casino_tui/app/stylescache.py): Textual's cache of a
widget's inner and outer styles is keyed by the colours alone, so it keeps no widget's
``StylesCache`` (and its lines) alive after the widget is gone; the styles are Textual's own;
a Textual whose method is not the cached one known here is left alone."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from textual._styles_cache import StylesCache
from textual.app import App, ComposeResult
from textual.color import Color
from textual.widgets import Static

from casino_tui.app import stylescache

from .conftest import make_app

TEXTUAL = vars(StylesCache)["get_inner_outer"]  # as Textual made it (before any app here)


@pytest.fixture
def textuals_own() -> Iterator[None]:
    """Textual's method during the test, and whatever was there before after it."""
    before = vars(StylesCache)["get_inner_outer"]
    StylesCache.get_inner_outer = TEXTUAL  # type: ignore[method-assign]
    yield
    StylesCache.get_inner_outer = before  # type: ignore[method-assign]


class Boxes(App[None]):
    CSS = "Static { background: $panel; border: round red; height: 3; }"

    def compose(self) -> ComposeResult:
        yield Static("kept", id="kept")


async def _drawn_and_removed() -> Any:
    """A widget drawn and then removed: a weak reference to its ``StylesCache``."""
    app = Boxes()
    async with app.run_test(size=(40, 12)) as pilot:
        gone = Static("gone for good", id="gone")
        await app.mount(gone)
        await pilot.pause()
        cache = weakref.ref(gone._styles_cache)
        assert gone._styles_cache._cache  # it drew its lines
        await gone.remove()
        await pilot.pause()
        del gone
    return cache


def drawn_and_removed() -> Any:
    """:func:`_drawn_and_removed` in an app of its own, run and gone."""
    cache = asyncio.run(_drawn_and_removed())
    gc.collect()
    return cache


def test_textuals_own_keeps_a_removed_widgets_lines(textuals_own: None) -> None:
    """What the change is for: with Textual's cache the removed widget's lines stay."""
    cache = drawn_and_removed()
    assert cache() is not None
    TEXTUAL.cache_clear()  # let it go


def test_a_removed_widgets_lines_are_let_go(textuals_own: None) -> None:
    assert stylescache.unkeyed_inner_outer()
    assert stylescache.unkeyed_inner_outer()  # idempotent
    cache = drawn_and_removed()
    assert cache() is None


def test_the_styles_are_textuals_own(textuals_own: None) -> None:
    pairs = [(Color(10, 20, 30), Color(200, 100, 50, 0.5)), (Color(0, 0, 0), Color(0, 0, 0, 0)),
             (Color(255, 255, 255), Color(1, 2, 3))]
    expected = [TEXTUAL.__wrapped__(StylesCache(), base, background) for base, background in pairs]
    assert stylescache.unkeyed_inner_outer()
    assert [StylesCache().get_inner_outer(base, background)
            for base, background in pairs] == expected


def test_another_textuals_method_is_left_alone(textuals_own: None) -> None:
    def plain(self: StylesCache, base: Color, background: Color) -> Any:
        return TEXTUAL.__wrapped__(self, base, background)

    StylesCache.get_inner_outer = plain  # type: ignore[method-assign]
    assert stylescache.unkeyed_inner_outer() is False
    assert vars(StylesCache)["get_inner_outer"] is plain


def test_the_game_caches_the_styles_by_their_colours(textuals_own: None) -> None:
    make_app()
    assert vars(StylesCache)["get_inner_outer"] is not TEXTUAL
    assert stylescache.unkeyed_inner_outer()
