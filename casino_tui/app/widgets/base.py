"""A widget drawn from one immutable value, refreshed only when that value changes.

The widgets using it have sizes fixed by the stylesheet, so a change never needs a new layout.

The game table updates many small widgets after every key; comparing the new data with the old
and refreshing only on a change keeps key-to-screen latency low (one widget re-rendered costs a
few milliseconds, twenty cost four times as much).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from textual.content import Content
from textual.css.scalar import Unit
from textual.widget import Widget

D = TypeVar("D")


class DataWidget(Widget, Generic[D]):
    """``set_data(value)`` stores ``value`` and refreshes the widget if it differs."""

    def __init__(self, data: D | None = None, *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._data: D | None = data
        self._title: str | None = None

    @property
    def data(self) -> D | None:
        return self._data

    def set_data(self, data: D) -> bool:
        if data == self._data:
            return False
        self._data = data
        self.refresh()
        return True

    def box_height(self, content_lines: int) -> int:
        """The height this widget takes with ``content_lines`` lines of content (``height:
        auto``): its gutter added, its stylesheet's ``min-height`` and ``max-height`` (in
        cells) applied."""
        styles = self.styles
        height = content_lines + styles.gutter.height
        low, high = styles.min_height, styles.max_height
        if low is not None and low.unit == Unit.CELLS:
            height = max(height, int(low.value))
        if high is not None and high.unit == Unit.CELLS:
            height = min(height, int(high.value))
        return height

    def set_data_sized(self, data: D, content_lines: Callable[[int], int]) -> bool:
        """:meth:`set_data` for a widget whose height follows its content: a new layout (every
        widget placed again, the whole screen drawn again: several times the cost of drawing
        this one widget) only when its height really changes, not when only the number of its
        content lines does within its ``min-height`` and ``max-height``.
        ``content_lines(width)``: the lines its content takes at ``width``."""
        width = self.size.width
        before = self.box_height(content_lines(width))
        changed = DataWidget.set_data(self, data)  # (subclasses call this from set_data)
        if changed and self.box_height(content_lines(width)) != before:
            self.refresh(layout=True)
        return changed

    def set_title(self, title: str) -> bool:
        """Set the border title to ``title`` (plain text, never markup) if it differs: setting
        Textual's ``border_title`` repaints the widget even when the title is the same."""
        if title == self._title:
            return False
        self._title = title
        self.border_title = Content(title)
        return True
