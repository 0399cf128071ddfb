"""A widget drawn from one immutable value, refreshed only when that value changes.

The widgets using it have sizes fixed by the stylesheet, so a change never needs a new layout.

The game table updates many small widgets after every key; comparing the new data with the old
and refreshing only on a change keeps key-to-screen latency low (one widget re-rendered costs a
few milliseconds, twenty cost four times as much).
"""

from __future__ import annotations

from typing import Generic, TypeVar

from textual.content import Content
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

    def set_title(self, title: str) -> bool:
        """Set the border title to ``title`` (plain text, never markup) if it differs: setting
        Textual's ``border_title`` repaints the widget even when the title is the same."""
        if title == self._title:
            return False
        self._title = title
        self.border_title = Content(title)
        return True
