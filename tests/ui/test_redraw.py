"""A key redraws only the lines it changed (casino_tui/app/widgets/base.py), and what is on the
screen is still exactly what a full redraw draws."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest
from rich.text import Text
from textual._styles_cache import StylesCache
from textual.app import App
from textual.color import Color
from textual.geometry import Region
from textual.pilot import Pilot
from textual.strip import Strip
from textual.widget import Widget

from casino_tui.app.screens.game import GameScreen
from casino_tui.app.widgets.base import Column, DataWidget, Row, StyledLines, changed_rows
from casino_tui.app.widgets.table import (
    HandView,
    LineData,
    LogView,
    MessageLine,
    RecentData,
    RecentPlays,
    SeatBox,
    TableView,
)

from .conftest import asynctest, make_app, settle
from .positions import table_4p


async def _hand_and_table(pilot: Pilot[None]) -> tuple[HandView, TableView]:
    """The game's hand and table once it is settled on screen."""
    await settle(pilot)
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, GameScreen)
    return screen.query_one("#hand", HandView), screen.query_one("#table", TableView)


def _screen_text(pilot: Pilot[None]) -> str:
    return pilot.app.export_screenshot()


async def _redrawn_text(pilot: Pilot[None]) -> str:
    """The screen after every widget was drawn again from scratch."""
    for widget in pilot.app.screen.walk_children():
        widget.refresh()
    await pilot.pause()
    return _screen_text(pilot)


@asynctest
async def test_the_screen_after_each_key_is_what_a_full_redraw_draws() -> None:
    """Cards, moves, piles, a selection, plays and the computers' answers: after each key the
    lines left as they were (not drawn again) and those drawn again make the screen a full
    redraw makes."""
    app = make_app(table_4p())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        keys = ["right", "right", "down", "left", "tab", "space", "tab", "space", "escape",
                "right", "enter", "right", "down", "enter", "left", "left", "enter"]
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
            await pilot.pause()
            assert isinstance(app.screen, GameScreen)
            shown = _screen_text(pilot)
            assert shown == await _redrawn_text(pilot), f"after {key}"


@asynctest
async def test_choosing_a_card_redraws_only_the_lines_that_changed() -> None:
    """Right: the hand's card lines are drawn again, not its frame; of the table, the lines
    whose piles the previewed move uses, not the others."""
    app = make_app(table_4p())
    async with app.run_test(size=(100, 30)) as pilot:
        hand, table = await _hand_and_table(pilot)
        asked: dict[str, list[tuple[Region, ...]]] = {}
        set_dirty = Widget._set_dirty  # (what a refresh marks, Textual's way or DataWidget's)

        def spy(widget: Widget, *regions: Region) -> None:
            asked.setdefault(widget.id or "", []).append(regions)  # (): all of it
            set_dirty(widget, *regions)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(Widget, "_set_dirty", spy)
            await pilot.press("right")
            await pilot.pause()
        assert asked["hand"] and all(asked["hand"])  # never all of it
        rows = {y for regions in asked["hand"] for r in regions for y in range(r.y, r.bottom)}
        assert rows and rows <= set(range(hand.size.height))
        assert all(asked.get("table", [(Region(),)]))
        table_rows = {y for regions in asked.get("table", []) for r in regions
                      for y in range(r.y, r.bottom)}
        assert len(table_rows) < table.size.height


@asynctest
async def test_what_a_key_did_not_change_is_not_styled_again() -> None:
    """Right: Textual styles the lines of the hand, the table and the move line again, not
    those of the game's containers (every frame covers them) nor of the widgets whose lines
    stayed as they were (widgets.base.SteadyLines); a change of theme styles them all again,
    in its colours, and the screen is what a full redraw draws."""
    app = make_app(table_4p())
    async with app.run_test(size=(100, 30)) as pilot:
        await _hand_and_table(pilot)
        screen = app.screen
        containers = {w.id for w in screen.query(Row)} | {w.id for w in screen.query(Column)}
        assert {"game-body", "main-col", "side-col", "opponents", "table-box"} <= containers
        styled: list[str] = []
        render_widget = StylesCache.render_widget

        def spy(cache: StylesCache, widget: Widget, crop: Region) -> list[Strip]:
            styled.append(widget.id or "")
            return render_widget(cache, widget, crop)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(StylesCache, "render_widget", spy)
            await pilot.press("right")
            await pilot.pause()
            assert "hand" in styled
            assert not (containers | {"game-header", "seat-0", "score", "log", "keys"}) & set(
                styled)
            styled.clear()
            app.theme = "nord"
            await pilot.pause()
            await pilot.pause()
            assert containers | {"hand", "table", "log", "seat-0"} <= set(styled)
        assert _screen_text(pilot) == await _redrawn_text(pilot)


@asynctest
async def test_only_the_lines_drawn_again_are_made_again_and_once() -> None:
    """Right makes Textual's strips for the lines it changed only (Textual alone would make
    every line of the hand and of the table again); Left and Right again bring back lines drawn
    before, and make none; every line carries its own row in its offsets (text selection)."""
    app = make_app(table_4p())
    async with app.run_test(size=(100, 30)) as pilot:
        hand, table = await _hand_and_table(pilot)
        made: list[tuple[str, str]] = []
        line_strip = DataWidget._line_strip

        def spy(widget: DataWidget[Any], line: Text, width: int, style: Any) -> Strip:
            made.append((widget.id or "", line.plain))
            return line_strip(widget, line, width, style)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(DataWidget, "_line_strip", spy)
            await pilot.press("right")
            await pilot.pause()
            first = list(made)
            made.clear()
            await pilot.press("left")
            await pilot.pause()
            await pilot.press("right")
            await pilot.pause()
        assert 0 < len([t for w, t in first if w == "hand"]) <= hand.size.height
        assert 0 < len([t for w, t in first if w == "table"]) < table.size.height
        assert not [m for m in made if m[0] in ("hand", "table")]
        for widget in (hand, table):
            for y in range(widget.size.height):
                assert _offset_rows(widget, y) <= {y}


def _offset_rows(widget: DataWidget[Any], y: int) -> set[int]:
    """The rows in the offsets (which text selection reads) of line ``y`` of ``widget``."""
    return {s.style.meta["offset"][1] for s in widget.render_line(y)
            if s.style is not None and s.style._meta is not None and "offset" in s.style.meta}


@asynctest
async def test_the_log_moving_up_makes_only_its_new_lines() -> None:
    """A play moves every line of the log up a row: only the lines of the new entries are made
    into strips, the others are the strips made before, each with its new row in its offsets
    (text selection), and the screen is what a full redraw draws."""
    app = make_app(table_4p())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GameScreen)
        log = screen.query_one("#log", LogView)
        for _ in range(3):  # enough entries to fill the log
            await pilot.press("enter")
            await settle(pilot)
            await pilot.pause()
        before = [line.plain for line in log.render().split("\n")]
        made: list[str] = []
        line_strip = DataWidget._line_strip

        def spy(widget: DataWidget[Any], line: Text, width: int, style: Any) -> Strip:
            if widget is log:
                made.append(line.plain)
            return line_strip(widget, line, width, style)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(DataWidget, "_line_strip", spy)
            await pilot.press("enter")
            await settle(pilot)
            await pilot.pause()
        after = [line.plain for line in log.render().split("\n")]
        assert after != before and len(after) == log.size.height
        assert made and not set(made) & set(before)  # lines seen before were not made again
        for y in range(log.size.height):
            assert _offset_rows(log, y) == {y}
        assert _screen_text(pilot) == await _redrawn_text(pilot)


@asynctest
async def test_lines_drawn_before_are_not_made_again_when_their_widget_is_drawn_whole() -> None:
    """At each play the seats' boxes are drawn again whole (their border and title change with
    the turn) and the message lines change their kind ("Your turn", "Waiting for ..."): the
    lines they drew before are not made into strips again, and the screen is what a full
    redraw draws."""
    app = make_app(table_4p())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.pause()
        made: list[tuple[str, str, tuple[Any, ...]]] = []
        line_strip = DataWidget._line_strip

        def spy(widget: DataWidget[Any], line: Text, width: int, style: Any) -> Strip:
            made.append((widget.id or "", line.plain, tuple(line.spans)))
            return line_strip(widget, line, width, style)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(DataWidget, "_line_strip", spy)
            for _ in range(4):
                await pilot.press("enter")
                await settle(pilot)
                await pilot.pause()
        watched = [m for m in made
                   if m[0] in ("message-line", "move-line") or m[0].startswith("seat-")]
        assert any(m[0] == "message-line" for m in watched)
        assert any(m[0].startswith("seat-") for m in watched)
        twice = [m for m in set(watched) if watched.count(m) > 1]
        assert not twice
        assert _screen_text(pilot) == await _redrawn_text(pilot)


@asynctest
async def test_a_seat_whose_cards_change_redraws_only_those_lines() -> None:
    """A seat box whose counts change but not its border's subtitle (a seat not to move):
    only the lines that changed are drawn again, not the whole box with its border."""
    app = make_app(table_4p())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GameScreen)
        box = next(b for b in screen.query(SeatBox) if b.data is not None
                   and not b.data.to_move and not b.data.thinking)
        data = box.data
        assert data is not None
        asked: list[tuple[Region, ...]] = []
        set_dirty = Widget._set_dirty  # (what a refresh marks, Textual's way or DataWidget's)

        def spy(widget: Widget, *regions: Region) -> None:
            if widget is box:
                asked.append(regions)
            set_dirty(widget, *regions)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(Widget, "_set_dirty", spy)
            box.set_data(replace(data, taken=data.taken + 4))
            await pilot.pause()
        assert asked and all(asked)  # some lines, never all of it
        shown = _screen_text(pilot)
        assert shown == await _redrawn_text(pilot)


def test_changed_rows_of_texts_of_more_or_fewer_lines() -> None:
    """Lines compared one by one; a text of another number of lines is compared only when the
    lines it lacks are blank rows (``ragged``): those rows changed too."""
    old, new = Text("a\nb"), Text("a\nc\nd")
    assert changed_rows(old, new, 10) is None
    assert changed_rows(old, new, 10, ragged=True) == [1, 2]
    assert changed_rows(new, old, 10, ragged=True) == [1, 2]
    assert changed_rows(old, Text("a\nb\n" + "x" * 11), 10, ragged=True) is None  # would wrap


class _Thinking:
    """A computer that thinks until the test ends."""

    in_process = False

    def start(self) -> None:
        pass

    async def choose(self, view: Any, level: str, seed: int) -> Any:
        await asyncio.Event().wait()

    def shutdown(self) -> None:
        pass


@asynctest
async def test_the_seat_to_move_is_drawn_in_the_themes_warning_colour() -> None:
    """The seat to move (set on the box itself, not by a class): a round border in the theme's
    warning colour and a bold title, following a change of theme; the others as the stylesheet
    draws them."""
    app = make_app(table_4p(), chooser_factory=_Thinking)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GameScreen)
        boxes = list(screen.query(SeatBox))
        moving = [b for b in boxes if b.data is not None and b.data.to_move]
        assert len(moving) == 1 and moving[0].data is not None and moving[0].data.thinking
        restyled: list[object] = []
        update_styles = App.update_styles

        def spy(app: App[Any], node: Any = None, animate: bool = True) -> None:
            restyled.append(node)
            update_styles(app, node, animate)

        with pytest.MonkeyPatch.context() as patch:  # the turn passes on and comes back
            patch.setattr(App, "update_styles", spy)
            data = moving[0].data
            moving[0].set_data(replace(data, to_move=False, thinking=False))
            moving[0].set_data(data)
            await pilot.pause()
        assert not [n for n in restyled if isinstance(n, SeatBox)]  # no stylesheet matched
        for theme in ("textual-light", "nord"):
            app.theme = theme
            await pilot.pause()
            await pilot.pause()
            warning = Color.parse(app.theme_variables["warning"])
            panel = Color.parse(app.theme_variables["panel-lighten-2"])
            for box in boxes:
                styles = box.styles
                if box is moving[0]:
                    assert styles.border_top == ("round", warning)
                    assert styles.border_title_style.bold
                else:
                    assert styles.border_top == ("round", panel)
                    assert not styles.border_title_style.bold


@asynctest
async def test_wrapped_lines_are_wrapped_once_per_change() -> None:
    """A long recent play or message is wrapped once when it changes, not once for its height
    before, once after and once to draw it; the screen is what a full redraw draws."""
    app = make_app(table_4p())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.pause()
        screen = app.screen
        recent = screen.query_one("#recent", RecentPlays)
        message = screen.query_one("#message-line", MessageLine)
        wrapped: list[str] = []
        wrap = Text.wrap

        def spy(text: Text, *args: Any, **kwargs: Any) -> Any:
            wrapped.append(text.plain)
            return wrap(text, *args, **kwargs)

        long = "West built 9 with A♦ 4♠ 2♣ 2♦ on the 9♠ and took nothing else at all, " * 2
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(Text, "wrap", spy)
            recent.set_data(RecentData(((False, long),)))
            message.set_data(LineData("Hint: " + long, "ok"))
            await pilot.pause()
        assert len(wrapped) == 2 and wrapped[0] == long
        assert len(recent.render().split("\n")) > 1 and len(message.render().split("\n")) > 1
        assert _screen_text(pilot) == await _redrawn_text(pilot)


@asynctest
async def test_a_line_is_made_into_the_strip_textual_makes() -> None:
    """A game widget makes a line that fits it into a strip without Textual's wrapping (it
    has nothing to wrap): the same segments as Textual's own ``render_strips`` of the line with
    the widget's styles, on every line of every game widget after a few plays."""
    from textual.content import Content
    from textual.visual import RenderOptions

    app = make_app(table_4p())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for key in ("right", "enter", "right", "tab", "space", "down"):
            await pilot.press(key)
            await settle(pilot)
            await pilot.pause()
        compared = 0
        for widget in app.screen.query(DataWidget):
            width = widget.size.width
            if not width:  # (not shown: the save line while saves work)
                continue
            lines = widget._lines_at(widget.render(), width)
            for line in lines or ():
                style = widget.visual_style
                ours = widget._line_strip(line, width, style)
                content = Content.from_rich_text(line, console=app.console)
                theirs = content.render_strips(width, 1, style, RenderOptions(
                    widget._get_style, widget.styles))[0]  # type: ignore[arg-type]
                assert list(ours) == list(theirs), (widget.id, line.plain)
                assert ours.cell_length == theirs.cell_length
                compared += 1
        assert compared > 20


def test_textual_styles_a_line_as_styled_lines_expects() -> None:
    """``StyledLines`` (widgets/base.py) relies on Textual's private ``StylesCache``: its
    ``render_line`` takes these arguments, is called by ``render`` for each line it styles
    again, and a widget keeps its cache in ``_styles_cache``. A Textual that changes any of
    it fails here (Textual is pinned: see pyproject.toml)."""
    import inspect

    params = list(inspect.signature(StylesCache.render_line).parameters)
    assert params == ["self", "styles", "y", "size", "content_size", "padding",
                      "base_background", "background", "render_content_line", "border_title",
                      "border_subtitle", "opacity", "ansi_theme", "native_ansi"]
    assert "self.render_line" in inspect.getsource(StylesCache.render)
    assert "self._styles_cache = StylesCache()" in inspect.getsource(Widget.__init__)
    assert "self._styles_cache.render_widget(" in inspect.getsource(Widget.render_lines)


@asynctest
async def test_lines_styled_before_are_given_again_and_are_what_textual_styles() -> None:
    """Plays turn the seat to move's border to the warning colour and back, and the key bar and
    the message lines between their two texts: after the first plays Textual styles none of
    those lines again (StyledLines: a content line is put between what Textual put around the
    widget's content, a border row is given as Textual styled it before); what is on the
    screen is what a full redraw (each line styled afresh) draws."""
    app = make_app(table_4p())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.pause()
        styled: list[str] = []
        render_line = StylesCache.render_line

        def spy(cache: StylesCache, *args: Any) -> Strip:
            styled.append(next((w.id or "" for w in app.screen.walk_children()
                                if getattr(w, "_styles_cache", None) is cache), "?"))
            return render_line(cache, *args)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(StylesCache, "render_line", spy)
            for _ in range(2):  # the lines of both turns styled once
                await pilot.press("enter")
                await settle(pilot)
                await pilot.pause()
            styled.clear()
            for _ in range(2):
                await pilot.press("enter")
                await settle(pilot)
                await pilot.pause()
                assert isinstance(app.screen, GameScreen)
        assert "keys" not in styled and styled.count("message-line") <= 1
        # each play, each of the three computers' boxes (4 lines) goes to the warning border
        # and back: 48 lines in two plays, all styled by Textual without StyledLines
        assert len([s for s in styled if s.startswith("seat-")]) < 8
        assert _screen_text(pilot) == await _redrawn_text(pilot)


@asynctest
async def test_each_styled_line_is_the_line_textual_styles() -> None:
    """Every line of every game widget as StyledLines gives it (kept, or made around its
    content from what Textual put around the frame's first content line) is, segment for
    segment with every style and its meta (the offsets text selection reads), the line
    Textual's own StylesCache styles for it, after plays and in another theme."""
    app = make_app(table_4p())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for theme in (None, "textual-light"):
            if theme is not None:
                app.theme = theme
                await pilot.pause()
            for _ in range(2):
                await pilot.press("right")
                await pilot.press("enter")
                await settle(pilot)
                await pilot.pause()
            assert isinstance(app.screen, GameScreen)
            widgets = list(app.screen.query(DataWidget))
            assert len(widgets) >= 9
            for widget in widgets:
                cache = widget._styles_cache
                assert isinstance(cache, StyledLines)
                if widget.id in ("log", "hand", "table"):  # made around their content
                    assert cache._edges and None not in cache._edges.values()
                crop = Region(0, 0, *widget.outer_size)
                cache.set_dirty(crop)
                ours = [list(strip) for strip in cache.render_widget(widget, crop)]
                textuals = [list(strip) for strip in StylesCache().render_widget(widget, crop)]
                assert ours == textuals, widget.id
                for line in ours:  # the meta too (Style equality may leave it out)
                    assert [s.style and s.style.meta for s in line] == \
                        [s.style and s.style.meta for s in textuals[ours.index(line)]]
