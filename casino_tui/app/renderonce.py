"""A Rich renderable drawn once per width, however often Textual asks for it.

Textual asks a widget holding a Rich renderable (a ``Static`` showing a ``rich.table.Table``)
for its lines several times as it first shows it: its height for each layout of the screen, then
its lines to draw, each time rendering it in full. A Table is costly to render (every cell
measured, then rendered, each time): the round's summary rendered its table three times in the
play that ends a round. :class:`RenderedOnce` keeps what the renderable rendered (its
segments) and its measurement, for each set of console options that can change them, so that
it is rendered once per width (a resize that changes the width renders it again, at that
width). The renderable must not change once wrapped, and must not depend on what the options
leave out of the key (the height: a Table renders its cells with no height of its own).
Textual's own styling (the widget's colours, the theme's) is applied outside it, when the
widget is drawn, so a change of theme draws it in the new colours.
"""

from __future__ import annotations

from typing import TypeVar

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.segment import Segment

# the options that cannot change a Table's segments: the height it is given, the console's
_IGNORED = frozenset({"height", "max_height", "size"})
MAX_KEPT = 4  # renderings kept: one per width seen lately
_Key = tuple[tuple[str, object], ...]
_V = TypeVar("_V")


def _key(options: ConsoleOptions) -> _Key:
    return tuple(sorted((name, value) for name, value in vars(options).items()
                        if name not in _IGNORED))


class RenderedOnce:
    """``renderable`` (not changed after this), rendered once per width and console options."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable
        self._segments: dict[_Key, list[Segment]] = {}
        self._measures: dict[_Key, Measurement] = {}
        self.renders = 0  # how many times the renderable was rendered

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        key = _key(options)
        measure = self._measures.get(key)
        if measure is None:
            measure = Measurement.get(console, options, self.renderable)
            _keep(self._measures, key, measure)
        return measure

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        key = _key(options)
        segments = self._segments.get(key)
        if segments is None:
            segments = list(console.render(self.renderable, options))
            self.renders += 1
            _keep(self._segments, key, segments)
        yield from segments


def _keep(cache: dict[_Key, _V], key: _Key, value: _V) -> None:
    if len(cache) >= MAX_KEPT:
        cache.pop(next(iter(cache)))  # the oldest
    cache[key] = value
