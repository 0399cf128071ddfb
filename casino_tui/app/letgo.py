"""A screen that is gone lets go of its widgets (:func:`let_go_of_widgets`)."""

from __future__ import annotations

from textual.widget import Widget


def let_go_of_widgets(screen: Widget) -> None:
    """Called as ``screen`` is removed (its ``on_unmount``): from then on it holds none of its
    widgets, even while something still holds the screen.

    Textual keeps each widget's list of its displayed children until that list is asked for
    again after a change: a screen that was gone still held its whole tree of widgets (their
    styles, caches and rendered lines) through that list, for as long as anything held the
    screen. And something may: the last message a widget handled stays with it until it
    handles another, and a message holds the screen that was active when it was sent (its
    sender). Under a table's game, a widget of the list of tables below it held that way the
    waiting room the game came from, with its widgets: about 3,000 objects, 0.4 MB, for the
    whole game. Asked once the screen's children are gone (at its unmount), the list is empty,
    and the widgets are freed."""
    screen.displayed_children  # noqa: B018  (asked for: made again, empty)


__all__ = ["let_go_of_widgets"]
