"""The moment the app begins to quit, for whoever waits for it.

A game that ``casino-tui serve`` forks from its fork server ends with ``os._exit`` once the
app has quit (:func:`casino_tui.serve.forkserver._leave`): nothing it made is freed one by
one, so a cyclic garbage collection while it quits is work for nothing, and the collector
found plenty to walk as Textual took every screen apart (a full collection of what the game
made, about 10 ms, in about one quit in two at the round's end). The fork server's child
registers here (:func:`when_quitting`) before the app runs; the app calls :func:`begun` when
it is asked to exit (:meth:`casino_tui.app.app.CasinoApp.exit`: the player's quit, the end
of a replay, a hang-up's signal). Nothing waits in a game started any other way (a test's
app, a fresh process), and it costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from .moment import Moment

_quitting = Moment()


def when_quitting(callback: Callable[[], None]) -> None:
    """Call ``callback`` (once) when the app begins to quit."""
    _quitting.wait(callback)


def begun() -> None:
    """The app begins to quit: call what waits for it, each once. A callback's error is not
    the app's (it must still quit)."""
    _quitting.come()


__all__ = ["begun", "when_quitting"]
