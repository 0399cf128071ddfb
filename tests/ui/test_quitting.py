"""What waits for the app to quit (casino_tui.app.quitting: a forked game stops its garbage
collector then, tests/test_serve_fork.py) is told once, as the app begins to quit, whichever
way it quits: Ctrl+Q at the table, Quit on the title's menu, a hang-up's signal."""

from __future__ import annotations

import signal
from collections.abc import Iterable

from textual.dom import DOMNode

from casino_tui.app import quitting
from casino_tui.app.screens.title import TitleScreen
from casino_tui.app.signals import quit_on_signal

from .conftest import asynctest, make_app, settle
from .positions import table_2p


def _waiter(seen: list[bool], app: object) -> None:
    """Registers a callback that records whether the app was still running when told."""
    quitting.when_quitting(lambda: seen.append(bool(getattr(app, "is_running", False))))


@asynctest
async def test_ctrl_q_at_the_table_tells_what_waits_once() -> None:
    app = make_app(table_2p())
    seen: list[bool] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        _waiter(seen, app)
        assert seen == []
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert seen == [True]  # told once, as it began to quit
    quitting.begun()  # nothing waits any more
    assert seen == [True]


@asynctest
async def test_quit_on_the_titles_menu_tells_what_waits() -> None:
    app = make_app()
    seen: list[bool] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TitleScreen)
        _waiter(seen, app)
        await pilot.press("q")
        await pilot.pause()
    assert seen == [True]


@asynctest
async def test_a_hang_up_tells_what_waits() -> None:
    app = make_app()
    seen: list[bool] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        _waiter(seen, app)
        quit_on_signal(app, signal.SIGHUP)
        await pilot.pause()
    assert seen == [True]
    assert app.return_code == 128 + signal.SIGHUP


def test_a_callbacks_error_does_not_stop_the_others() -> None:
    seen: list[str] = []

    def broken() -> None:
        raise RuntimeError("a waiter's own trouble")

    quitting.when_quitting(broken)
    quitting.when_quitting(lambda: seen.append("told"))
    quitting.begun()
    assert seen == ["told"]


@asynctest
async def test_nothing_is_restyled_once_the_app_quits() -> None:
    """Taking the screens apart blurs their focused widgets; their restyle would be for a
    frame that is never drawn, so the app skips it once it quits (and only then)."""
    app = make_app()
    restyled: list[int] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TitleScreen)
        focused = app.screen.focused  # the menu
        assert focused is not None
        real = app.stylesheet.update_nodes

        def update_nodes(nodes: Iterable[DOMNode], animate: bool = False) -> None:
            nodes = list(nodes)
            restyled.append(len(nodes))
            real(nodes, animate=animate)

        app.stylesheet.update_nodes = update_nodes  # type: ignore[method-assign]
        focused.update_node_styles()  # while it plays: restyled
        assert restyled == [len(list(focused.walk_children(with_self=True)))]
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert len(restyled) == 1  # the blurs as it quit restyled nothing
