"""What a redraw sends is compact and draws the same screen (casino_tui/app/output.py), and the
Textual internals it stands in for are the ones it was written against."""

from __future__ import annotations

import hashlib
import inspect
from typing import Any

import pyte
import pytest
from rich.color import Color as RichColor
from rich.color import ColorSystem
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.terminal_theme import DEFAULT_TERMINAL_THEME
from textual import _compositor
from textual.app import App
from textual.color import Color
from textual.filter import ANSIToTruecolor
from textual.strip import Strip
from textual.widget import Widget

from casino_tui.app import output
from casino_tui.app.output import Encoder, QuickTruecolor, render_chops, render_layout

from .conftest import asynctest, make_app, settle
from .positions import table_4p

WIDTH, HEIGHT = 100, 30


def _textual(update: _compositor.CompositorUpdate, console: Console) -> str:
    """What Textual's own ``render_segments`` sends for ``update``."""
    if isinstance(update, _compositor.ChopsUpdate):
        return str(output.TEXTUAL_CHOPS(update, console))
    assert isinstance(update, _compositor.LayoutUpdate)
    return str(output.TEXTUAL_LAYOUT(update, console))


def _compact(update: _compositor.CompositorUpdate, console: Console) -> str:
    if isinstance(update, _compositor.ChopsUpdate):
        return render_chops(update.chops, update.spans, update.chop_ends, console)
    assert isinstance(update, _compositor.LayoutUpdate)
    return render_layout(update.strips, update.region.x, update.region.y, console)


class _Terminal:
    """A terminal (pyte) to replay what is sent, and what each of its cells shows."""

    def __init__(self) -> None:
        self.screen = pyte.Screen(WIDTH, HEIGHT)
        self.stream = pyte.ByteStream(self.screen)

    def feed(self, text: str) -> None:
        self.stream.feed(text.encode())

    def cells(self) -> list[list[tuple[Any, ...]]]:
        buffer = self.screen.buffer
        return [[(c.data, c.fg, c.bg, c.bold, c.italics, c.underscore, c.strikethrough,
                  c.reverse, c.blink) for c in (buffer[y][x] for x in range(WIDTH))]
                for y in range(HEIGHT)]


async def _updates_of_a_game() -> list[_compositor.CompositorUpdate]:
    """Every update of the screen Textual makes in a game: the first frame, choosing cards,
    previews, plays, the computers' answers, a dialog."""
    updates: list[_compositor.CompositorUpdate] = []
    app = make_app(table_4p())
    textual_display = App._display

    def spy(self: App[Any], screen: Any, renderable: Any) -> None:
        if isinstance(renderable, _compositor.CompositorUpdate):
            updates.append(renderable)
        textual_display(self, screen, renderable)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(App, "_display", spy)
        async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
            await settle(pilot)
            for key in ["right", "right", "down", "left", "tab", "space", "escape", "right",
                        "enter", "right", "enter", "question_mark", "escape", "left", "enter"]:
                await pilot.press(key)
                await settle(pilot)
                await pilot.pause()
            updates.append(app.screen._compositor.render_full_update())
    return updates


def _forget_textuals_sequences(updates: list[_compositor.CompositorUpdate]) -> None:
    """Textual keeps each style's sequence on the style, in the colour system it was first
    sent in (one per process, as a game runs): forgotten, to send them in another."""
    for update in updates:
        if isinstance(update, _compositor.ChopsUpdate):
            lines = [strip for chops in update.chops for strip in chops.values() if strip]
        elif isinstance(update, _compositor.LayoutUpdate):
            lines = [strip for line in update.strips for strip in line]
        for strip in lines:
            strip._render_cache = None
            strip._crop_cache.clear()  # (the pieces Textual cuts from it, each with its own)
            for segment in strip:
                if segment.style is not None:
                    segment.style._ansi = None


@asynctest
async def test_a_game_sent_compact_looks_the_same_in_a_terminal_and_takes_fewer_bytes() -> None:
    """After each update of a real game, a terminal fed what Textual sends and one fed what is
    sent compact show the same characters in the same colours and attributes, in 256 colours
    and in truecolour, and the compact bytes are at most three quarters of Textual's."""
    updates = await _updates_of_a_game()
    kinds = {type(update) for update in updates}
    assert kinds == {_compositor.ChopsUpdate, _compositor.LayoutUpdate}
    for system in ("256", "truecolor"):
        _forget_textuals_sequences(updates)
        console = Console(color_system=system, force_terminal=True)  # type: ignore[arg-type]
        theirs, ours = _Terminal(), _Terminal()
        sent = [0, 0]
        for number, update in enumerate(updates):
            textual, compact = _textual(update, console), _compact(update, console)
            theirs.feed(textual)
            ours.feed(compact)
            sent[0] += len(textual.encode())
            sent[1] += len(compact.encode())
            assert ours.cells() == theirs.cells(), f"update {number} in {system}"
            assert compact.endswith("\x1b[0m") or "\x1b[" not in compact.rsplit("m", 1)[-1]
        assert sent[1] <= sent[0] * 3 // 4, sent


def test_a_style_is_sent_only_as_it_changes() -> None:
    """Only what changes: the same style nothing, a colour its code, an attribute added its
    code, an attribute taken away a reset and the whole style, plain a reset; no text, nothing
    at all."""
    code = Encoder(ColorSystem.TRUECOLOR)
    red_on_black = Style(color="#ff0000", bgcolor="#000000")
    bold = red_on_black + Style(bold=True)
    blue = Style(color="#0000ff", bgcolor="#000000")
    assert code.change(red_on_black, Style(color="#ff0000", bgcolor="#000000")) == ""
    assert code.change(red_on_black, blue) == "\x1b[38;2;0;0;255m"
    assert code.change(red_on_black, bold) == "\x1b[1m"
    assert code.change(bold, blue) == "\x1b[0;38;2;0;0;255;48;2;0;0;0m"
    assert code.change(blue, Style(bgcolor="#000000")) == "\x1b[39m"
    assert code.change(blue, None) == "\x1b[0m"
    assert code.change(blue, Style()) == "\x1b[0m"
    assert code.change(None, Style(italic=True, dim=True)) == "\x1b[2;3m"
    sent: list[str] = []
    left_in = code.segments([Segment("a", red_on_black), Segment("", blue),
                             Segment("b", Style(color="#ff0000", bgcolor="#000000")),
                             Segment("c", None)], None, sent.append)
    assert "".join(sent) == "\x1b[38;2;255;0;0;48;2;0;0;0mab\x1b[0mc"
    assert left_in is None


def test_a_link_is_sent_as_textual_sends_it() -> None:
    code = Encoder(ColorSystem.TRUECOLOR)
    link = Style(color="#ff0000", link="https://example.org")
    sent: list[str] = []
    left_in = code.segments([Segment("a", Style(bold=True)), Segment("here", link)], None,
                            sent.append)
    assert "".join(sent) == ("\x1b[1ma\x1b[0m"
                             + Strip.render_style(link, "here", ColorSystem.TRUECOLOR))
    assert left_in is None


def test_pieces_that_draw_nothing_are_not_moved_to_and_lines_need_no_newline() -> None:
    console = Console(color_system="truecolor", force_terminal=True)
    style = Style(color="#ffffff", bgcolor="#000000")
    strip = Strip([Segment("ab", style)], 2)
    chops: list[dict[int, Strip | None]] = [{0: strip, 2: Strip([], 0), 5: None}, {0: strip}]
    sent = render_chops(chops, [(0, 0, 6), (1, 0, 2)], [[2, 5, 6], [2]], console)
    assert sent == "\x1b[1H\x1b[38;2;255;255;255;48;2;0;0;0mab\x1b[2Hab\x1b[0m"
    layout = render_layout([[strip, strip], [strip]], 3, 4, console)
    assert layout == "\x1b[5;4H\x1b[38;2;255;255;255;48;2;0;0;0mabab\x1b[6;4Hab\x1b[0m"


def test_the_quick_truecolor_filter_changes_what_textuals_changes_and_passes_the_rest() -> None:
    textual = ANSIToTruecolor(DEFAULT_TERMINAL_THEME)
    quick = QuickTruecolor(textual)
    background = Color(18, 18, 18)
    plain = [Segment("a", Style(color="#e0e0e0", bgcolor="#121212")), Segment("b", None),
             Segment("c", Style(bold=True, color="#ffffff"))]
    assert quick.apply(plain, background) is plain
    assert textual.apply(plain, background) == plain
    for odd in (Segment("d", Style(dim=True, color="#e0e0e0", bgcolor="#121212")),
                Segment("e", Style(color="red")), Segment("f", Style(bgcolor="blue")),
                Segment("g", Style(color=RichColor.parse("color(3)")))):
        line = [*plain, odd]
        assert quick.apply(line, background) == textual.apply(line, background) != line


@asynctest
async def test_the_app_uses_the_quick_filter_of_textuals_current_one() -> None:
    """In place of Textual's, made again when Textual makes its filter again (a theme), and
    none when Textual's is off (ANSI colours)."""
    app = make_app(table_4p())
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        await settle(pilot)
        textual = [f for f in app._filters if type(f) is ANSIToTruecolor]
        assert len(textual) == 1
        quick = [f for f in app.get_line_filters() if isinstance(f, QuickTruecolor)]
        assert len(quick) == 1 and quick[0].source is textual[0]
        assert quick[0]._terminal_theme is textual[0]._terminal_theme
        assert app.get_line_filters() is app.get_line_filters()  # (asked for each widget)
        app.theme = "textual-light"
        await pilot.pause()
        again = [f for f in app.get_line_filters() if isinstance(f, QuickTruecolor)]
        assert again and again[0].source is not textual[0] and again[0].source in app._filters
        app.ansi_color = True
        await pilot.pause()
        assert not any(isinstance(f, ANSIToTruecolor) for f in app.get_line_filters())


@asynctest
async def test_in_ascii_only_mode_the_ascii_filter_comes_last() -> None:
    app = make_app(table_4p(), ascii_only=True)
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        await settle(pilot)
        filters = app.get_line_filters()
        assert isinstance(filters[0], QuickTruecolor) and filters[-1] is app._ascii_filter


@asynctest
async def test_every_line_of_a_game_is_filtered_as_textuals_filter_does() -> None:
    checked = [0, 0]
    quick_apply = QuickTruecolor.apply

    def spy(self: QuickTruecolor, segments: list[Segment], background: Color) -> Any:
        ours = quick_apply(self, segments, background)
        assert ours == ANSIToTruecolor.apply(self, segments, background)
        checked[0] += 1
        checked[1] += ours is segments
        return ours

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(QuickTruecolor, "apply", spy)
        app = make_app(table_4p())
        async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
            await settle(pilot)
            for key in ["right", "enter", "right", "enter"]:
                await pilot.press(key)
                await settle(pilot)
    assert checked[0] > 100 and 0 < checked[1] < checked[0]  # most lines pass, a few change


@asynctest
async def test_a_partial_update_writes_what_textuals_writes_asking_fewer_widgets() -> None:
    """Every partial update of a game (keys, plays, the computers' answers, a dialog over the
    table and closed, a notice over it that goes away, a resize) made by
    ``output.written_chops`` and by Textual's own ``render_partial_update`` from the same
    regions: a terminal fed each shows the same screen after every update; and the update
    of a play's frames asks neither the screen nor a container behind the game's widgets
    for its lines."""
    compared = [0]
    asked: list[set[str]] = []
    terminals = (_Terminal(), _Terminal())
    console = Console(color_system="truecolor", force_terminal=True)
    render_lines = Widget.render_lines

    def both(self: _compositor.Compositor) -> _compositor.ChopsUpdate | None:
        regions = set(self._dirty_regions)
        names: set[str] = set()

        def spy(widget: Widget, crop: Any) -> Any:
            names.add(type(widget).__name__ if widget.id is None else widget.id)
            return render_lines(widget, crop)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(Widget, "render_lines", spy)
            ours = output._partial_update(self)
        asked.append(names)
        self._dirty_regions.update(regions)
        theirs = output.TEXTUAL_PARTIAL(self)
        assert (ours is None) == (theirs is None)
        if ours is not None and theirs is not None:
            terminals[0].feed(_compact(ours, console))
            terminals[1].feed(_compact(theirs, console))
            assert terminals[0].cells() == terminals[1].cells(), f"update {compared[0]}"
            compared[0] += 1
        return theirs

    def full(self: _compositor.Compositor, *args: Any, **kwargs: Any) -> Any:
        update = textual_full(self, *args, **kwargs)
        for terminal in terminals:
            terminal.feed(_compact(update, console))
        return update

    textual_full = _compositor.Compositor.render_full_update
    app = make_app(table_4p())  # (which installs compact output: the patches go over it)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_compositor.Compositor, "render_partial_update", both)
        patch.setattr(_compositor.Compositor, "render_full_update", full)
        async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
            await settle(pilot)
            for key in ["right", "right", "down", "tab", "space", "escape", "right", "enter",
                        "question_mark", "escape", "right", "enter"]:
                await pilot.press(key)
                await settle(pilot)
                await pilot.pause()
            assert len(asked) > 10
            behind = {"GameScreen", "game-body", "main-col", "side-col", "table-box"}
            assert not any(names & behind for names in asked), asked
            app.notify("A notice over the table", timeout=0.2)
            await pilot.pause()
            await pilot.press("right")
            await pilot.pause(0.4)
            await pilot.press("left")
            await pilot.resize_terminal(WIDTH - 10, HEIGHT)
            await pilot.pause()
            await pilot.press("right")
            await settle(pilot)
            await pilot.pause()
    assert compared[0] > 10


# Textual's methods that :mod:`casino_tui.app.output` does the work of, as written in the
# Textual it was written against (8.2.8): if Textual changes them, read them again and update
# output.py to match, then these digests.
TEXTUAL_METHODS = {
    "ANSIToTruecolor.apply": "b88e90947c5d77df",
    "ANSIToTruecolor.truecolor_style": "bda06c4bb81bba72",
    "App._display": "4b78dff6669a455c",
    "Compositor._get_renders": "8ac93299aa5d3bef",
    "Compositor._render_chops": "ca8c3359d7afd017",
    "Compositor.render_partial_update": "888dccc892d8ecc2",
    "ChopsUpdate.render_segments": "4c1cdb567e0b8354",
    "LayoutUpdate.render_segments": "ff329c722506c983",
    "Strip.render": "2ba7a4913a72125d",
    "Strip.render_ansi": "08043dedb90d50a7",
    "Strip.render_style": "749d890bb5c43510",
}


def _digest(name: str) -> str:
    owner, method = name.split(".")
    where = {"ChopsUpdate.render_segments": output.TEXTUAL_CHOPS,
             "LayoutUpdate.render_segments": output.TEXTUAL_LAYOUT,
             "Compositor.render_partial_update": output.TEXTUAL_PARTIAL}
    function: Any = where.get(name)
    if function is None:
        cls = {"Strip": Strip, "ANSIToTruecolor": ANSIToTruecolor, "App": App,
               "Compositor": _compositor.Compositor}[owner]
        function = inspect.unwrap(getattr(cls, method))
    return hashlib.sha256(inspect.getsource(function).encode()).hexdigest()[:16]


@pytest.mark.parametrize("name", sorted(TEXTUAL_METHODS))
def test_textuals_internals_are_the_ones_output_was_written_against(name: str) -> None:
    assert _digest(name) == TEXTUAL_METHODS[name]


def test_compact_output_takes_the_place_of_textuals_and_needs_what_it_reads() -> None:
    """The attributes it reads exist where it reads them, and installing it replaces Textual's
    three methods (and is what the app's driver does)."""
    style = Style(bold=True, color="#ffffff")
    assert style._attributes & style._set_attributes == 1
    assert Console(color_system="256", force_terminal=True)._color_system == ColorSystem.EIGHT_BIT
    update = _compositor.ChopsUpdate([{}], [(0, 0, 0)], [[]])
    assert (update.chops, update.spans, update.chop_ends) == ([{}], [(0, 0, 0)], [[]])
    assert ANSIToTruecolor(DEFAULT_TERMINAL_THEME)._terminal_theme is DEFAULT_TERMINAL_THEME
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_compositor.ChopsUpdate, "render_segments", output.TEXTUAL_CHOPS)
        patch.setattr(_compositor.LayoutUpdate, "render_segments", output.TEXTUAL_LAYOUT)
        patch.setattr(_compositor.Compositor, "render_partial_update", output.TEXTUAL_PARTIAL)
        make_app().get_driver_class()
        assert _compositor.ChopsUpdate.render_segments is output._chops_update
        assert _compositor.LayoutUpdate.render_segments is output._layout_update
        assert _compositor.Compositor.render_partial_update is output._partial_update
