"""Texts' widths remembered for fewer texts (casino_tui/app/cellcache.py): once an app is made,
Rich and Textual measure through one cache of ``cellcache.SIZE`` entries of Rich's own
function, which gives the widths Rich gives and keeps no more texts than that; a Rich whose
cache is not the one known here is left alone."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import pytest
import rich.cells
import textual._cells
import textual._compositor
import textual._segment_tools
import textual.content

from casino_tui.app import cellcache
from casino_tui.app.app import CasinoApp

TEXTS = ["", "Your turn", "10♥ J♠", "♣♦", "漢字 and kana かな", "👩‍👩‍👧 family", "❤️ heart",
         "e\u0301", "tab\there", "x" * 600]


@pytest.fixture
def richs_own() -> Iterator[Any]:
    """Rich's own cache of 4,096 (a new one) in every module, for the test; what was there
    before after it."""
    before = rich.cells.cached_cell_len
    rich_own = lru_cache(cellcache.RICH_SIZE)(before.__wrapped__)
    modules = [m for m in (rich.cells, textual._cells, textual._compositor,
                           textual._segment_tools, textual.content)]
    saved = {m: dict(vars(m)) for m in modules}
    for m in modules:
        for key, value in list(vars(m).items()):
            if value is before:
                setattr(m, key, rich_own)
    installed = list(cellcache._installed)
    cellcache._installed.clear()
    yield rich_own
    for m, names in saved.items():
        for key, value in names.items():
            if value is before:
                setattr(m, key, before)
    cellcache._installed[:] = installed


def test_an_app_measures_through_one_bounded_cache_with_richs_widths(richs_own: Any) -> None:
    CasinoApp()
    bounded = rich.cells.cached_cell_len
    assert bounded is not richs_own and bounded.cache_info().maxsize == cellcache.SIZE
    for module in (textual._cells, textual._compositor, textual._segment_tools,
                   textual.content):
        assert module.cell_len is bounded  # Textual's drawing measures through it too
    for text in TEXTS:
        assert rich.cells.cell_len(text) == richs_own(text) == rich.cells._cell_len(
            text, "auto")
    assert cellcache.fewer_cell_lengths() and rich.cells.cached_cell_len is bounded  # once


def test_the_bounded_cache_keeps_no_more_than_its_size(richs_own: Any) -> None:
    assert cellcache.fewer_cell_lengths()
    for n in range(3 * cellcache.SIZE):
        rich.cells.cell_len(f"log line {n}: Ann took 10♦")
    assert rich.cells.cached_cell_len.cache_info().currsize == cellcache.SIZE
    for n in range(3 * cellcache.SIZE):
        richs_own(f"log line {n}: Ann took 10♦")
    assert richs_own.cache_info().currsize == 3 * cellcache.SIZE  # (Rich's kept them all)
    cellcache.forget_cell_lengths()
    assert rich.cells.cached_cell_len.cache_info().currsize == 0


def test_a_rich_with_another_cache_is_left_alone(richs_own: Any) -> None:
    other = lru_cache(100)(richs_own.__wrapped__)
    rich.cells.cached_cell_len = other
    try:
        assert not cellcache.fewer_cell_lengths()
        assert rich.cells.cached_cell_len is other and not cellcache._installed
        cellcache.forget_cell_lengths()  # (nothing installed: nothing to empty)
    finally:
        rich.cells.cached_cell_len = richs_own
