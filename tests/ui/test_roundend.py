"""The play that ends a round, made cheaper and drawn the same: the round's summary parses no
CSS in a game forked from the warm fork server, restyles no widget of the table under it as it
first comes, and renders its table once per width (casino_tui/app/renderonce.py), drawing it
again at a new width and in a new theme's colours."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from rich import box
from rich.console import Console
from rich.table import Table
from textual._compositor import Compositor, LayoutUpdate
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Static
from textual.widgets._toast import Toast, ToastRack

from casino_tui.app.app import CasinoApp
from casino_tui.app.renderonce import RenderedOnce
from casino_tui.app.screens import firstshow, summary
from casino_tui.app.screens.game import GameScreen
from casino_tui.app.screens.gameover import GameOverScreen
from casino_tui.app.screens.summary import RoundSummaryScreen
from casino_tui.app.styles import css, screen_css_files
from casino_tui.serve import forkserver

from .conftest import asynctest, make_app, settle
from .positions import last_play


async def _to_summary(app: CasinoApp, pilot: Pilot[None]) -> RoundSummaryScreen:
    await settle(pilot)
    await pilot.press("enter")  # South's last card: the round ends
    await settle(pilot)
    assert isinstance(app.screen, RoundSummaryScreen)
    return app.screen


def test_every_screens_css_file_is_parsed_in_the_fork_servers_warm_up(
        parses: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game forked from the warm fork server parses no CSS as it shows its round's summary
    (dialogs.tcss and the summary's widgets' CSS were parsed as the summary was first shown,
    in every game, at every player's first round's end)."""
    for name in ("HOME", "CASINO_TUI_DATA_DIR", "CASINO_TUI_CONFIG_DIR"):
        monkeypatch.setenv(name, str(tmp_path / name))
    forkserver._warm_up()
    assert {Path(p).name for p in screen_css_files()} >= {"dialogs.tcss", "game.tcss",
                                                           "setup.tcss"}
    for path in screen_css_files():
        assert any(str(path) in p for p in parses), path

    async def round_end() -> None:
        app = make_app(last_play())
        async with app.run_test(size=(100, 30), tooltips=True, notifications=True) as pilot:
            await settle(pilot)
            parses.clear()  # (the table's own widgets: not this test's)
            await _to_summary(app, pilot)

    asyncio.run(round_end())
    # (Widget's own CSS, parsed before, comes again with the lowest tie breaker of the widget
    # classes the app has shown: here without the title a game shows first, unlike the warm-up)
    assert [p for p in parses if not p.endswith("'Widget.DEFAULT_CSS')")] == [], parses


@asynctest
async def test_the_summary_restyles_nothing_of_the_app_as_it_first_comes() -> None:
    """The table's screen brings the dialogs' CSS with its own: a dialog's file read as the
    dialog is pushed made Textual restyle every widget of the app (the table's under it)."""
    assert set(css("dialogs")) <= set(RoundSummaryScreen.CSS_PATH)
    app = make_app(last_play())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        restyled: list[object] = []
        update = app.stylesheet.update

        def counting(root: Any, animate: bool = False) -> None:
            restyled.append(root)
            update(root, animate=animate)

        app.stylesheet.update = counting  # type: ignore[method-assign]
        await _to_summary(app, pilot)
        assert restyled == []


def _table() -> Table:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, expand=False)
    table.add_column("", style="bold", no_wrap=True)
    for name in ("You", "Computer with a long name"):
        table.add_column(name, justify="right", no_wrap=True, max_width=14)
    table.add_row("Most cards", "3", "·")
    table.add_row("Big Casino 10♦", "·", "2")
    table.add_section()
    table.add_row("Round total", "3", "2")
    return table


def test_rendered_once_per_width_the_same_as_the_renderable() -> None:
    console = Console(width=100, color_system="truecolor", force_terminal=True)
    once = RenderedOnce(_table())
    for width in (100, 30, 18, 100, 30):  # 30 and 18: narrower than the table, it shrinks
        options = console.options.update_width(width)
        mine = list(console.render(once, options))
        assert mine == list(console.render(_table(), options))
        assert console.measure(once, options=options) == console.measure(_table(),
                                                                          options=options)
    assert once.renders == 3  # a width seen before is not rendered again
    options = console.options.update_width(30).update(height=5)
    list(console.render(once, options))  # the height a Table ignores: not rendered again
    assert once.renders == 3


@asynctest
async def test_the_summarys_table_is_rendered_once_as_it_is_shown() -> None:
    app = make_app(last_play())
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _to_summary(app, pilot)
        content = screen.query_one("#summary-table", Static).content
        assert isinstance(content, RenderedOnce)
        assert content.renders == 1


@asynctest
async def test_what_the_table_changed_before_the_summary_came_is_not_drawn_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The summary's first frame draws the table under it as it is: the round's last move,
    the log's "Round 1 over" and the key bar's summary keys, all changed just before. When
    the table's own update came after that frame, Textual had the summary draw all of itself
    again for it, the same picture (twice in three runs, headless). Drawn whole once now; a
    repaint asked for later draws the same picture, and what the table changes after the
    summary's first frame is still drawn."""
    held = [False]
    update = GameScreen._on_timer_update

    def late(self: GameScreen) -> None:  # (the table's update comes after the summary's frame)
        if held[0]:
            self._update_timer.pause()
            return
        update(self)

    monkeypatch.setattr(GameScreen, "_on_timer_update", late)
    frames: list[tuple[str, list[str]]] = []
    whole = Compositor.render_full_update

    def drawing(self: Compositor, *args: Any, **kwargs: Any) -> LayoutUpdate:
        update = whole(self, *args, **kwargs)
        lines = ["".join(f"{seg.text}{seg.style}" for strip in line for seg in strip)
                 for line in update.strips]
        frames.append((type(self.root).__name__, lines))
        return update

    monkeypatch.setattr(Compositor, "render_full_update", drawing)
    updates: list[str] = []
    any_update = Compositor.render_update

    def updating(self: Compositor, *args: Any, **kwargs: Any) -> object:
        updates.append(type(self.root).__name__)
        return any_update(self, *args, **kwargs)

    monkeypatch.setattr(Compositor, "render_update", updating)
    app = make_app(last_play())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        game = app.screen
        assert isinstance(game, GameScreen)
        held[0] = True
        frames.clear()
        screen = await _to_summary(app, pilot)
        await pilot.pause(0.2)
        assert [name for name, _ in frames] == ["RoundSummaryScreen"]
        held[0] = False
        game._update_timer.resume()
        await pilot.pause(0.2)
        assert [name for name, _ in frames] == ["RoundSummaryScreen"]
        screen.refresh()  # a repaint asked for later: the same picture
        await pilot.pause(0.2)
        assert [name for name, _ in frames] == ["RoundSummaryScreen"] * 2
        assert frames[1][1] == frames[0][1]
        # what the table changes now is drawn (seen through the summary: its part of it)
        updates.clear()
        game.local.add_note("A note after the summary came")
        game.refresh_all()
        await pilot.pause(0.2)
        assert updates == ["RoundSummaryScreen"] and len(frames) == 2


async def _summary_picture(theme: str | None, resize: tuple[int, int] | None) -> str:
    app = make_app(last_play())
    async with app.run_test(size=(120, 40)) as pilot:
        await _to_summary(app, pilot)
        if theme is not None:
            app.theme = theme
            await settle(pilot)
        if resize is not None:
            await pilot.resize_terminal(*resize)
            await settle(pilot)
        assert isinstance(app.screen, RoundSummaryScreen)
        return app.export_screenshot()


@asynctest
async def test_the_summary_is_drawn_again_after_a_theme_change_and_a_resize(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A theme changed and the terminal resized under the summary: drawn as a summary drawn
    with no table rendered ahead (the same picture as a plain Static of the Table)."""
    before = await _summary_picture(None, None)
    cached = await _summary_picture("textual-light", (80, 24))
    assert cached != before
    with monkeypatch.context() as m:
        m.setattr(summary, "RenderedOnce", lambda renderable: renderable)
        plain = await _summary_picture("textual-light", (80, 24))
    assert cached == plain


@pytest.fixture
def layouts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The class of each screen laid out (``Screen._refresh_layout``), in order."""
    seen: list[str] = []
    layout = Screen._refresh_layout

    def laying(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
        seen.append(type(self).__name__)
        layout(self, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", laying)
    return seen


@asynctest
async def test_the_summary_is_laid_out_once_as_it_first_comes(layouts: list[str]) -> None:
    """Textual laid the summary out twice as it first came: at its first resume, then again
    for its widgets' first sizes and its push's mount (the same layout). Once now; what
    changes its layout later (a longer note, a resize) is laid out again."""
    app = make_app(last_play())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        layouts.clear()
        screen = await _to_summary(app, pilot)
        await pilot.pause(0.2)
        assert layouts == ["RoundSummaryScreen"]
        notes = screen.query_one("#summary-notes", Static)
        before = notes.region.height
        notes.update("Next round.\nA second line.\nAnd a third.")
        await pilot.pause(0.2)
        assert len(layouts) >= 2 and set(layouts) == {"RoundSummaryScreen"}
        assert notes.region.height > before  # (laid out again: taller)
        laid = len(layouts)
        await pilot.resize_terminal(90, 28)
        await pilot.pause(0.2)
        assert len(layouts) > laid


async def _long_summary(second_layout: bool, seen: list[str]) -> tuple[str, list[str]]:
    """A summary taller than an 80x24 terminal (its table scrolls), over the table."""
    data = summary.SummaryData(
        round_no=3, sides=("You", "Computer"), counts=(("Cards taken", (27, 25)),),
        items=tuple((f"Item {i}", (i % 3, i % 2)) for i in range(30)), round_totals=(30, 15),
        game_totals=(33, 18), target=61, notes=("Next round. First to 61 wins.",),
        game_over=False)
    app = make_app(last_play())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        seen.clear()
        shown = RoundSummaryScreen(data)
        shown.SECOND_LAYOUT = second_layout
        await app.push_screen(shown)
        await pilot.pause(0.2)
        assert shown.query_one("#summary-scroll").show_vertical_scrollbar
        return app.export_screenshot(), list(seen)


@asynctest
async def test_a_summary_that_scrolls_is_laid_out_again_as_from_textual(
        layouts: list[str]) -> None:
    """A scroll bar shown by the first layout takes room: the second layout is kept, and the
    picture is Textual's."""
    ours, laid = await _long_summary(False, layouts)
    theirs, textuals = await _long_summary(True, layouts)
    assert laid == textuals, (laid, textuals)
    assert ours == theirs


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@asynctest
async def test_the_summary_laid_out_once_is_the_picture_textual_draws(
        size: tuple[int, int], monkeypatch: pytest.MonkeyPatch) -> None:
    async def picture() -> str:
        app = make_app(last_play())
        async with app.run_test(size=size) as pilot:
            await _to_summary(app, pilot)
            await pilot.pause(0.2)
            return app.export_screenshot()

    ours = await picture()
    monkeypatch.setattr(RoundSummaryScreen, "SECOND_LAYOUT", True)
    assert ours == await picture()


@asynctest
async def test_the_game_over_screen_is_laid_out_once_its_table_rendered_once(
        layouts: list[str]) -> None:
    """The game over screen, shown as the last round's summary closes, is a FirstShow (laid
    out and drawn whole once) with its table rendered once (RenderedOnce)."""
    app = make_app(last_play(scores=[15, 18]))
    async with app.run_test(size=(100, 30)) as pilot:
        await _to_summary(app, pilot)
        await pilot.pause(0.2)
        layouts.clear()
        await pilot.press("enter")
        await settle(pilot)
        await pilot.pause(0.2)
        assert isinstance(app.screen, GameOverScreen)
        assert layouts.count("GameOverScreen") == 1, layouts
        content = app.screen.query_one("#gameover-table", Static).content
        assert isinstance(content, RenderedOnce)
        assert content.renders == 1


def test_textual_lays_a_first_shown_screen_out_as_firstshow_expects() -> None:
    """FirstShow (screens/firstshow.py) drops a pushed screen's second layout through
    Textual's private parts: a widget's ``_layout_required`` (asked as its virtual size is
    first set, posted as a ``Layout`` message when idle), the screen's (``AwaitMount`` asks
    for a layout of the screen once its widgets are mounted), ``Screen._on_layout`` (run
    after a subclass's ``on_layout``, which can prevent it), a message's ``time`` on
    ``textual._time.get_time``'s clock, and the screen's ``_layout_widgets`` and
    ``_compositor.widgets``. A Textual that changes any of it fails here (Textual is pinned:
    see pyproject.toml)."""
    import inspect

    from textual import _time
    from textual.message import Message
    from textual.widget import AwaitMount, Widget

    assert "self._layout_required = True" in inspect.getsource(Widget.refresh)
    assert "self.virtual_size = virtual_size" in inspect.getsource(Widget._size_updated)
    check = inspect.getsource(Widget._check_refresh)
    assert "if self._layout_required:" in check and "messages.Layout(self)" in check
    assert "self._parent.refresh(layout=True)" in inspect.getsource(AwaitMount.__await__)
    on_layout = inspect.getsource(Screen._on_layout)
    assert "self._layout_widgets" in on_layout and "self._layout_required = True" in on_layout
    assert "self._layout_required" in inspect.getsource(Screen._on_timer_update)
    assert "_time.get_time()" in inspect.getsource(Message.__post_init__)
    assert _time.get_time is firstshow.get_time
    assert "screen_layout_refresh_signal.publish" in inspect.getsource(Screen._refresh_layout)
    assert "self._layout_widgets.clear()" in inspect.getsource(Screen._refresh_layout)


@asynctest
async def test_the_summary_is_laid_out_once_with_the_notifications_rack(
        layouts: list[str]) -> None:
    """A game's screens have the notifications' rack (a test's app only with
    ``notifications=True``): its first showing hid it with a new inline rule, which laid the
    summary out a second time in every served game. The rack is hidden so from the start:
    one layout, and the same picture as Textual's."""
    app = make_app(last_play())
    async with app.run_test(size=(100, 30), tooltips=True, notifications=True) as pilot:
        await settle(pilot)
        layouts.clear()
        screen = await _to_summary(app, pilot)
        await pilot.pause(0.2)
        assert layouts == ["RoundSummaryScreen"]
        rack = screen.query_one(ToastRack)
        assert not rack.display and rack.styles.inline.get_rule("display", None) == "none"
        ours = app.export_screenshot()
    app = make_app(last_play())
    with pytest.MonkeyPatch.context() as m:
        m.setattr(firstshow.FirstShow, "_extend_compose", Screen._extend_compose)
        async with app.run_test(size=(100, 30), tooltips=True, notifications=True) as pilot:
            await settle(pilot)
            layouts.clear()
            await _to_summary(app, pilot)
            await pilot.pause(0.2)
            assert layouts == ["RoundSummaryScreen"] * 2  # (Textual's: the rack's layout)
            assert app.export_screenshot() == ours


@asynctest
async def test_a_notification_shows_on_the_summary_as_it_comes() -> None:
    """With a notification to show as the summary comes, its rack shows it (laid out
    again, as from Textual); once it is gone the rack is hidden."""
    app = make_app(last_play())
    async with app.run_test(size=(100, 30), tooltips=True, notifications=True) as pilot:
        await settle(pilot)
        app.notify("A message for the player", timeout=0.5)
        screen = await _to_summary(app, pilot)
        await pilot.pause(0.1)
        rack = screen.query_one(ToastRack)
        assert rack.display and len(rack.query(Toast)) == 1
        assert "A&#160;message&#160;for" in app.export_screenshot()
        await pilot.pause(0.8)
        await settle(pilot)
        app._refresh_notifications()
        await pilot.pause(0.1)
        assert not rack.display


def test_textual_shows_its_notifications_rack_as_firstshow_expects() -> None:
    """FirstShow hides the rack as Textual's ``Screen._extend_compose`` makes it: Textual adds
    it there, hidden by its CSS, and its first showing sets ``display`` from whether there
    are notifications (``ToastRack.show``). A Textual that changes it fails here."""
    import inspect

    assert "ToastRack(" in inspect.getsource(Screen._extend_compose)
    assert "self.display = bool(notifications)" in inspect.getsource(ToastRack.show)
    assert "display: none;" in ToastRack.DEFAULT_CSS
    assert "toast_rack.show" in inspect.getsource(App._refresh_notifications)
