"""Starting a game styles each widget as few times as it can: the New game screen's (``n``) and the
table's (Enter) widgets are styled as they are mounted; one whose classes changed after that,
before the screen's first frame, is styled once more at the screen's first resume, not each
time a class changes (:func:`firstshow.restyle_held`), and the others are not restyled there;
the title under the table is not restyled as it is pushed (the app loads the table's CSS at
start-up). What the widgets end up with is what a full restyle gives them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path, PurePath
from typing import Any, ClassVar, TypeVar

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.geometry import Spacing
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Static

from casino_tui.app.screens import firstshow
from casino_tui.app.screens.firstshow import FirstShow
from casino_tui.app.screens.game import GameScreen
from casino_tui.app.screens.setup import SetupScreen
from casino_tui.app.screens.title import TitleScreen

from .conftest import asynctest, make_app, settle


@pytest.fixture
def styled(monkeypatch: pytest.MonkeyPatch) -> Counter[int]:
    """How many times each node (by id()) was styled (Textual's ``Stylesheet.apply``; the
    virtual nodes of component classes are not counted)."""
    seen: Counter[int] = Counter()
    apply = Stylesheet.apply

    def counting(self: Stylesheet, node: DOMNode, **kwargs: Any) -> None:
        if type(node) is not DOMNode:  # (a component class's virtual node)
            seen[id(node)] += 1
        apply(self, node, **kwargs)

    monkeypatch.setattr(Stylesheet, "apply", counting)
    return seen


def _rules(screen: Screen[Any]) -> dict[int, dict[str, Any]]:
    return {id(node): dict(node.styles.base.get_rules())
            for node in screen.walk_children(with_self=True)}


def _restyled_whole(app: App[None], screen: Screen[Any]) -> None:
    """Each node of ``screen`` has the styles a full restyle gives it."""
    before = _rules(screen)
    app.stylesheet.update(screen)
    assert _rules(screen) == before


async def _styled_after(pilot: Pilot[None], styled: Counter[int],
                       key: str) -> tuple[Screen[Any], list[DOMNode]]:
    """``key`` pressed (the count of styles begun afresh) and the app settled: the screen it
    shows, and its nodes."""
    styled.clear()
    await pilot.press(key)
    await settle(pilot)
    await pilot.pause(0.2)
    screen = pilot.app.screen
    return screen, list(screen.walk_children(with_self=True))


@asynctest
async def test_a_new_games_screens_are_styled_as_mounted_and_again_only_where_a_class_changed(
        styled: Counter[int]) -> None:
    """Every widget of the New game screen was styled as it was mounted (an ``Input`` sets two
    classes as it is made, before that); the focused field and the cycler disabled for two
    players, whose classes changed after their mount, once more at the first resume, and the
    screen itself (styled as it was pushed, before its CSS was read); no other node again.
    The title and all under the app were restyled as the New game screen's CSS came."""
    app = make_app(None)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        title = app.screen
        assert isinstance(title, TitleScreen)
        title_nodes = [id(node) for node in title.walk_children(with_self=True)]
        setup, nodes = await _styled_after(pilot, styled, "n")
        assert isinstance(setup, SetupScreen)
        assert len(nodes) > 25
        twice = {node for node in nodes if styled[id(node)] == 2}
        assert all(styled[id(node)] in (1, 2) for node in nodes)
        assert twice == {setup, setup.query_one("#setup-preset"),
                         setup.query_one("#setup-partners")}, twice
        assert setup.focused is setup.query_one("#setup-preset")
        assert setup.query_one("#setup-partners").disabled
        assert styled[id(setup.query_one("#setup-target", Input))] == 1
        # (the New game screen's CSS is loaded as it is first pushed: the app restyled)
        assert all(styled[node] == 1 for node in title_nodes)
        assert setup.query_one("#setup-target", Input).has_class("-valid")
        _restyled_whole(app, setup)

        game, nodes = await _styled_after(pilot, styled, "enter")
        assert isinstance(game, GameScreen)
        assert all(styled[id(node)] == 1 for node in nodes if node is not game)
        assert styled[id(game)] == 2  # (the screen: styled as pushed, again at its resume)
        assert not any(styled[node] for node in title_nodes)  # (the table's CSS was loaded)
        _restyled_whole(app, game)


class _Marked(FirstShow, Screen[None]):
    """A FirstShow screen whose label gets a class as it is mounted (held until shown)."""

    CSS: ClassVar[str] = "#label { color: red; } #label.-marked { color: green; }"

    def compose(self) -> ComposeResult:
        yield Static("label", id="label")

    def on_mount(self) -> None:
        self.query_one("#label").add_class("-marked")


class _MarkedApp(App[None]):
    def update_styles(self, node: DOMNode, animate: bool = True) -> None:  # as CasinoApp's
        if not firstshow.restyle_held(node):
            super().update_styles(node, animate)


_S = TypeVar("_S", bound=Screen[Any])


async def _shown(pilot: Pilot[Any], screen: _S) -> _S:
    """``screen`` pushed and shown (its first resume done)."""
    await pilot.app.push_screen(screen)
    await pilot.pause()
    await pilot.pause()
    return screen


class _LateApp(_MarkedApp):
    CSS: ClassVar[str] = "#late { color: red; } #late.-on { color: blue; }"


@pytest.mark.parametrize("refresh_styles", [True, False])
@asynctest
async def test_a_class_given_before_the_first_showing_is_styled_when_shown(
        refresh_styles: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A restyle held until the screen's first resume is done by it; if that resume does not
    restyle (Textual's ``refresh_styles``), the screen restyles itself then."""
    resume = events.ScreenResume.__init__

    def resuming(self: events.ScreenResume, refresh_styles: bool = True) -> None:
        resume(self, refresh_styles=refresh_styles and this_test_refreshes)

    this_test_refreshes = refresh_styles
    monkeypatch.setattr(events.ScreenResume, "__init__", resuming)
    app = _MarkedApp()
    async with app.run_test(size=(40, 10)) as pilot:
        screen = await _shown(pilot, _Marked())
        label = screen.query_one("#label")
        assert screen._restyle_held  # (the class came before the first resume)
        assert label.has_class("-marked")
        assert label.styles.color.rgb == (0, 128, 0)  # green: styled with it
        label.remove_class("-marked")  # after: at once, as from Textual
        assert label.styles.color.rgb == (255, 0, 0)


@asynctest
async def test_a_widget_not_in_the_dom_is_styled_as_it_is_mounted() -> None:
    """Guard of what :func:`firstshow.restyle_held` relies on (Textual's ``DOMNode._parent``,
    ``App._register``): a widget made, not mounted, has no parent; a class it gets then (its
    restyle left out) is in its styles once it is mounted; a screen's parent is the app."""
    app = _LateApp()
    async with app.run_test(size=(40, 10)) as pilot:
        late = Static("late", id="late")
        assert late._parent is None
        assert firstshow.restyle_held(late)
        late.add_class("-on")
        await app.screen.mount(late)
        await pilot.pause()
        assert late.styles.color.rgb == (0, 0, 255)
        assert app.screen._parent is app
        assert not firstshow.restyle_held(late)  # (a shown screen's: restyled at once)
        assert not firstshow.restyle_held(app)


class _Dropped(FirstShow, Screen[None]):
    """A FirstShow screen that marks a label (its restyle held) and takes it out again before
    it is first shown."""

    CSS: ClassVar[str] = "#gone { color: red; } #gone.-marked { color: green; }"

    def compose(self) -> ComposeResult:
        yield Static("stays", id="stays")
        yield Static("gone", id="gone")

    gone: Static | None = None

    async def on_mount(self) -> None:
        self.gone = self.query_one("#gone", Static)
        self.gone.add_class("-marked")
        await self.gone.remove()


@asynctest
async def test_a_node_taken_out_before_the_first_showing_is_not_restyled_then(
        styled: Counter[int]) -> None:
    """The first resume restyles the held nodes still in the screen: one taken out since is
    left alone, and what stays is styled once, as it was mounted."""
    app = _MarkedApp()
    async with app.run_test(size=(40, 10)) as pilot:
        screen = await _shown(pilot, _Dropped())
        assert screen._first_resume_done
        assert screen._restyle_held  # (the label's class came before the first resume)
        assert not screen.query("#gone")
        counts = {type(node).__name__ + str(node.id): styled[id(node)]
                  for node in screen.walk_children(with_self=True)}
        assert counts == {"_DroppedNone": 2, "Staticstays": 1}, counts
        assert screen.gone is not None and styled[id(screen.gone)] == 1  # (as mounted)


@asynctest
async def test_a_screens_own_css_is_read_before_its_widgets_are_styled(
        tmp_path: Path) -> None:
    """Textual's ``App.run`` runs every task at once on Python 3.12 and later (asyncio's eager
    task factory): a pushed screen's task composes and mounts its widgets, each styled as it
    is mounted, before ``push_screen`` reads the CSS files the screen brings. The screen
    reads them first (:meth:`FirstShow._compose`), so its widgets have their rules, as on
    3.11 (the first resume restyles only what was held and the screen: the New game screen
    was drawn on 3.12 without its own file's rules). Here the screen's task runs before the
    push, on any Python."""
    own = tmp_path / "own.tcss"
    own.write_text("#box { padding: 0 3; color: green; }\n", encoding="utf-8")

    class OwnCss(FirstShow, Screen[None]):
        CSS_PATH: ClassVar[list[str | PurePath]] = [own]

        def compose(self) -> ComposeResult:
            yield Static("box", id="box")

    app = _MarkedApp()
    async with app.run_test(size=(40, 10)) as pilot:
        screen = OwnCss()
        app._register(app, screen)  # its task runs now: composed, mounted, not yet pushed
        for _ in range(20):
            await pilot.pause()
            if screen.query("#box") and screen.query_one("#box").is_mounted:
                break
        assert screen.query_one("#box").is_mounted
        await _shown(pilot, screen)
        box = screen.query_one("#box")
        assert box.styles.padding == Spacing(0, 3, 0, 3)
        assert box.styles.color.rgb == (0, 128, 0)
        _restyled_whole(app, screen)
