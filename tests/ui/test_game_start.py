"""A new game as it is first shown: the New game screen (``n`` at the title) and the table
(Enter on it) each drawn whole once, with the breakpoint classes of their size from their first
frame, not styled again at their first resize (casino_tui/app/screens/firstshow.py), and laid
out again on a real resize."""

from __future__ import annotations

from typing import Any

import pytest
from textual._compositor import Compositor
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widgets import OptionList

from casino_tui.app.screens.game import GameScreen
from casino_tui.app.screens.setup import SetupScreen
from casino_tui.app.screens.title import TitleScreen

from .conftest import asynctest, make_app, settle


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Any]]:
    """Each layout of a screen (its class and size) and each whole-screen drawing (the classes
    of the screen drawn)."""
    seen: dict[str, list[Any]] = {"layouts": [], "wholes": []}
    layout = Screen._refresh_layout
    whole = Compositor.render_full_update

    def laying(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
        layout(self, *args, **kwargs)
        seen["layouts"].append((type(self).__name__, tuple(self.size)))

    def drawing(self: Compositor, *args: Any, **kwargs: Any) -> Any:
        root = self.root
        seen["wholes"].append((type(root).__name__, set(root.classes) if root else set()))
        return whole(self, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", laying)
    monkeypatch.setattr(Compositor, "render_full_update", drawing)
    return seen


async def _deal(pilot: Any, seen: dict[str, list[Any]]) -> GameScreen:
    app = pilot.app
    await settle(pilot)
    await pilot.press("n")
    await settle(pilot)
    await pilot.pause(0.2)
    for kind in seen.values():
        kind.clear()
    await pilot.press("enter")
    await settle(pilot)
    await pilot.pause(0.2)
    assert isinstance(app.screen, GameScreen) and app.screen.awaiting_human
    return app.screen


@asynctest
async def test_a_new_games_table_is_drawn_whole_once_and_laid_out_once(
        drawn: dict[str, list[Any]]) -> None:
    """Textual showed a new screen by laying it out and drawing all of it, then laid it and
    the title under it out again at the resize to the size it was just laid out at, and drew
    all of it again once its widgets were mounted and the New game screen removed: the same
    frame twice. The table is drawn whole once (what its first turn changes after is still
    drawn), with its breakpoint classes, and the title under it is not laid out; a repaint of
    the whole screen asked for later is still done."""
    app = make_app(None)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _deal(pilot, drawn)
        games = [w for w in drawn["wholes"] if w[0] == "GameScreen"]
        assert len(games) == 1, drawn["wholes"]
        assert {"-narrow", "-short"} <= games[0][1]
        # (the second: Textual's, once the screen's widgets are all mounted; what it moves,
        # if anything, is drawn)
        assert drawn["layouts"] == [("GameScreen", (100, 30))] * 2, drawn["layouts"]
        screen.refresh()  # a repaint asked for later is done
        await settle(pilot)
        await pilot.pause(0.1)
        assert len([w for w in drawn["wholes"] if w[0] == "GameScreen"]) == 2


@asynctest
async def test_the_title_under_the_table_neither_refreshes_nor_redraws_it(
        drawn: dict[str, list[Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    """The New game screen's Enter dismisses it, which resumes the title, and pushes the
    table: the title refreshed its menu under the table, and Textual had the table repaint all
    of itself for what changed on the title (a screen right under the top one counts as seen
    through it), drawing its first frame whole twice whenever the title's update came after
    that frame (always on Python 3.12 and 3.13). Under the table the title changes nothing
    on the screen; shown again, it is drawn whole, with its menu up to date."""
    refreshed: list[bool] = []
    refresh_menu = TitleScreen.refresh_menu

    def counted(self: TitleScreen, look: bool = True) -> None:
        refreshed.append(look)
        refresh_menu(self, look)

    monkeypatch.setattr(TitleScreen, "refresh_menu", counted)
    app = make_app(None)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        title = app.screen
        assert isinstance(title, TitleScreen)
        menu = title.query_one("#title-menu", OptionList)
        assert menu.get_option("continue").disabled
        refreshed.clear()
        await _deal(pilot, drawn)
        assert refreshed == []  # (not while the table covers it)
        assert [w[0] for w in drawn["wholes"]] == ["GameScreen"], drawn["wholes"]
        # whatever changes on the title later does not draw the table again
        title.refresh()
        menu.refresh()
        await settle(pilot)
        await pilot.pause(0.1)
        assert [w[0] for w in drawn["wholes"]] == ["GameScreen"], drawn["wholes"]
        await pilot.press("q", "y")  # back to the title: drawn whole, its menu refreshed
        await settle(pilot)
        await pilot.pause(0.1)
        assert app.screen is title and refreshed == [True]
        assert drawn["wholes"][-1][0] == "TitleScreen"
        assert not menu.get_option("continue").disabled  # (the game just left)


@asynctest
async def test_a_new_games_table_is_drawn_whole_once_when_the_app_is_late(
        drawn: dict[str, list[Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    """On a busy host the app's queue is late: the New game screen's removal (after which the
    second drawing of the table's first frame is dropped) finished more than a frame after
    the table's first resume, and the table's update timer had by then drawn it whole again
    and laid it out a third time. Its removal made late here (its unmount waits until the
    table's first frame is drawn, then six frames more): the table is still drawn whole once
    and laid out twice."""
    import asyncio

    async def late_unmount(self: SetupScreen) -> None:
        for _ in range(1000):  # (at most 10 s)
            if any(w[0] == "GameScreen" for w in drawn["wholes"]):
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)
        removed.append(type(self).__name__)

    removed: list[str] = []
    monkeypatch.setattr(SetupScreen, "on_unmount", late_unmount, raising=False)
    app = make_app(None)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _deal(pilot, drawn)
        assert removed == ["SetupScreen"]  # (late, as on a busy host)
        assert [w[0] for w in drawn["wholes"]] == ["GameScreen"], drawn["wholes"]
        assert drawn["layouts"] == [("GameScreen", (100, 30))] * 2, drawn["layouts"]
        screen.refresh()  # what is asked after it is drawn
        await settle(pilot)
        await pilot.pause(0.1)
        assert [w[0] for w in drawn["wholes"]] == ["GameScreen"] * 2


@asynctest
async def test_a_real_resize_lays_a_new_games_table_out_again(
        drawn: dict[str, list[Any]]) -> None:
    app = make_app(None)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _deal(pilot, drawn)
        hand = screen.query_one("#hand")
        before = hand.region
        drawn["layouts"].clear()
        await pilot.resize_terminal(160, 48)  # the big cards, and the wide and tall classes
        await settle(pilot)
        assert ("GameScreen", (160, 48)) in drawn["layouts"]
        assert screen.has_class("-wide") and screen.has_class("-tall")
        assert not screen.has_class("-narrow") and not screen.has_class("-short")
        assert screen.big_cards == 2 and hand.region != before
        await pilot.resize_terminal(100, 30)  # and back
        await settle(pilot)
        assert hand.region == before and screen.has_class("-narrow") and screen.big_cards == 0


@asynctest
async def test_the_new_game_screen_is_drawn_whole_once_and_not_styled_again(
        drawn: dict[str, list[Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    """The New game screen gets its breakpoint classes as it is made: Textual set them at the
    first resize, which styled the whole screen again and drew it whole a second time."""
    restyled: list[str] = []
    update = DOMNode.update_node_styles

    def styling(self: DOMNode, *args: Any, **kwargs: Any) -> None:
        if isinstance(self, Screen):
            restyled.append(type(self).__name__)
        update(self, *args, **kwargs)

    monkeypatch.setattr(DOMNode, "update_node_styles", styling)
    app = make_app(None)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for kind in drawn.values():
            kind.clear()
        await pilot.press("n")
        await settle(pilot)
        await pilot.pause(0.2)
        assert isinstance(app.screen, SetupScreen)
        setups = [w for w in drawn["wholes"] if w[0] == "SetupScreen"]
        assert len(setups) == 1, drawn["wholes"]
        assert "-narrow" in setups[0][1]
        # (not even at its first resume: only the nodes whose classes changed since they
        # were mounted are restyled then)
        assert "SetupScreen" not in restyled, restyled
        assert ("TitleScreen", (100, 30)) not in drawn["layouts"]
