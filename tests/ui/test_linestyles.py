"""A game widget's new line is made without Textual's ``Content`` (widgets.base.LineStyles),
into the strip Textual makes of it: the same segments, styles and meta (offsets), for lines
of any text and spans, with the styles kept from the lines made before; and a widget's
drawing joined from its lines is split into the same lines without splitting it
(widgets.base.split_of_joined)."""

from __future__ import annotations

import inspect
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.style import Style as RichStyle
from rich.text import Span, Text
from textual import content as textual_content
from textual._context import active_app
from textual.app import App
from textual.color import Color
from textual.content import Content
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions

from casino_tui.app.widgets.base import _ONE_LINE, DataWidget, LineStyles, split_of_joined

from .conftest import asynctest

CONSOLE = Console()
# every span style kind a line can hold: Rich's names and definitions (ANSI colours too, which
# the app's terminal theme converts), Rich style objects (meta, links), none at all
SPAN_STYLES: st.SearchStrategy[str | RichStyle] = st.sampled_from([
    "bold", "dim italic", "bold reverse", "#ff5f5f", "#000000 on #ffffff", "red on blue",
    "underline", "italic", "", "not bold", "strike blink",
    RichStyle(color="#5f87af"), RichStyle(bgcolor="#303a4a", bold=True), RichStyle(),
    RichStyle(color="red", underline=True), RichStyle(meta={"pile": 3}),
    RichStyle(link="https://example.org"), RichStyle(dim=True, color="#808080"),
])
LINE_STYLES: st.SearchStrategy[str | RichStyle] = st.sampled_from([
    "", "bold", "dim italic", "#ffaf00", "on #303030", RichStyle(italic=True),
    RichStyle(), RichStyle(color="green"), RichStyle(bgcolor="#102030", reverse=True)])
TEXT = st.text(alphabet="ab ▸✓·♠♥10‹›中…\x00\x1b\x07", max_size=24)
BASES = [
    Style(background=Color.parse("#1e1e1e"), foreground=Color.parse("#e0e0e0")),
    Style(background=Color(10, 20, 30, 0.5), foreground=Color(200, 200, 200, 0.7),
          dim=True),
    Style(),
    Style(bold=True, background=Color.parse("#000080")),
]


@st.composite
def lines(draw: st.DrawFn) -> Text:
    plain = draw(TEXT)
    line = Text(plain, style=draw(LINE_STYLES))
    for _ in range(draw(st.integers(0, 6))):
        start = draw(st.integers(0, len(plain)))
        end = draw(st.integers(start, len(plain)))
        line.stylize(draw(SPAN_STYLES), start, end)
    for _ in range(draw(st.integers(0, 2))):  # appended pieces: spans that touch
        piece = draw(TEXT)
        line.append(piece, style=draw(SPAN_STYLES))
    return line


def _get_style(style: str | Style) -> Style:
    return style if isinstance(style, Style) else Style.parse(style)


def textuals(line: Text, base: Style) -> Strip:
    """The strip Textual's own Content makes of ``line``."""
    width = max(1, line.cell_len)
    content = Content.from_rich_text(line, console=CONSOLE)
    strips = content.render_strips(width, 1, base, RenderOptions(
        cast(Any, _get_style), _ONE_LINE))
    return strips[0] if strips else Strip.blank(0)


def _same(ours: Strip, theirs: Strip) -> None:
    assert list(ours) == list(theirs)
    # (Segment equality compares styles by their hash: the meta, the offsets, compared too)
    assert [s.style.meta if s.style else None for s in ours] == \
        [s.style.meta if s.style else None for s in theirs]
    assert ours.cell_length == theirs.cell_length


KEPT = LineStyles()  # kept across the examples: what it keeps must never give another style
APP: App[None] = App()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(line=lines(), base=st.sampled_from(BASES), in_app=st.booleans())
def test_a_line_is_made_into_textuals_strip(line: Text, base: Style, in_app: bool) -> None:
    token = active_app.set(APP) if in_app else None  # (the app's theme for ANSI colours)
    try:
        ours = KEPT.strip(line, base, _get_style, CONSOLE)
        theirs = textuals(line, base)
    finally:
        if token is not None:
            active_app.reset(token)
    assert ours is not None  # (Rich's Text strips the control codes Content would)
    _same(ours, theirs)


def test_lines_of_the_game_are_made_as_textual_makes_them() -> None:
    """Lines as the game's widgets draw them, each made twice (the second from what was
    kept): a log entry, a hand's row of cards, a key bar, an empty line."""
    kept = LineStyles()
    hand = Text(" ")
    for i in range(4):
        hand.append("│", style=RichStyle(color="#808080"))
        hand.append_text(Text("7♠ ", style="bold #000000 on #ffffff"))
        hand.append("│ ", style=RichStyle(color="#ffaf00", bold=True) if i == 1 else None)
    keys = Text()
    for key, desc in (("Enter", "play"), ("m", "list"), ("?", "help")):
        keys.append(f" {key} ", style="bold reverse")
        keys.append(f" {desc} ")
    examples = [Text("South takes 7♠ with 7♥", style="dim italic"), hand, keys, Text(""),
                Text("  no style at all")]
    for base in BASES:
        for line in examples * 2:
            made = kept.strip(line, base, _get_style, CONSOLE)
            assert made is not None
            _same(made, textuals(line, base))


def test_what_textual_would_change_goes_textuals_way() -> None:
    """A style named for a component class (``.name``, found among the widget's
    ancestors), and a text with a control code that Textual's Content strips (Rich's Text
    strips them too, unless its text is set past it)."""
    assert LineStyles().strip(Text("x", style=".title"), BASES[0], _get_style, CONSOLE) is None
    line = Text("ab")
    line._text = ["a\rb"]
    assert line.plain == "a\rb"
    assert LineStyles().strip(line, BASES[0], _get_style, CONSOLE) is None


def test_textual_makes_a_line_as_line_styles_expects() -> None:
    """``LineStyles`` repeats what Textual 8.2's ``Content`` does to a line: these are the
    steps it follows (Textual is pinned: a Textual that changes them fails here, and the
    comparisons above tell how)."""
    from_rich = inspect.getsource(Content.from_rich_text)
    assert "Style.from_rich_style(get_style(style), ansi_theme)" in from_rich
    assert "content.stylize_before(" in from_rich
    assert "_strip_control_codes(text)" in inspect.getsource(Content.__init__)
    render = inspect.getsource(Content.render)
    assert "spans.sort(key=itemgetter(0, 1))" in render
    assert "cache_key = tuple(sorted(stack))" in render
    assert "current_style = style_cache[cache_key] = combine(styles)" in render
    to_strip = inspect.getsource(textual_content._FormattedLine.to_strip)
    assert "(style + text_style).rich_style_with_offset(x, y)" in to_strip
    assert "x += len(text)" in to_strip


@st.composite
def drawn_lines(draw: st.DrawFn) -> Text:
    """A line as a widget draws it, and some no widget draws (spans of no length, past the
    text, a newline in it)."""
    line = Text(draw(st.text(alphabet="ab ♠中\t\n", max_size=8)), style=draw(LINE_STYLES),
                justify=draw(st.sampled_from([None, "left", "right"])),
                no_wrap=draw(st.booleans()))
    for _ in range(draw(st.integers(0, 4))):
        start = draw(st.integers(0, len(line.plain)))
        line.stylize(draw(SPAN_STYLES), start, draw(st.integers(start, len(line.plain))))
    if draw(st.booleans()):
        line.append(draw(st.text(alphabet="xy", max_size=3)), style=draw(SPAN_STYLES))
    if draw(st.booleans()):  # a span of no length, or one past the text
        at = draw(st.integers(0, len(line.plain) + 2))
        line._spans.append(Span(at, at + draw(st.integers(0, 1)), "bold"))
    return line


def _text_of(text: Text) -> tuple[object, ...]:
    return (text.plain, text.spans, text.style, text.justify, text.overflow, text.no_wrap,
            text.end, text.tab_size)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(drawn_lines(), max_size=6))
def test_lines_joined_are_the_lines_splitting_the_join_gives(lines: list[Text]) -> None:
    joined = Text("\n").join(lines)
    split = split_of_joined(lines)
    if split is None:  # (split then, as before)
        assert len(lines) < 2 or any("\n" in line.plain or any(
            not 0 <= s.start <= s.end <= len(line.plain) for s in line.spans) for line in lines)
        return
    theirs = list(joined.split("\n", allow_blank=True))
    assert [_text_of(line) for line in split] == [_text_of(line) for line in theirs]


class _Lines(DataWidget[tuple[str, ...]]):
    def render_data(self) -> Text:
        return self._joined([Text(line, style="bold") for line in self.data or ()])


@asynctest
async def test_a_widget_draws_its_lines_without_splitting_its_drawing() -> None:
    """A game widget's drawing joined from its lines (``DataWidget._joined``) is compared and
    drawn line by line from them: Rich's ``split`` is never called."""

    class Lines(App[None]):
        def compose(self) -> Any:
            yield _Lines(("a", "b", "c"))

    app = Lines()
    async with app.run_test(size=(20, 5)) as pilot:
        widget = app.query_one(_Lines)
        await pilot.pause()
        split = Text.split
        calls = [0]

        def spy(text: Text, *args: Any, **kwargs: Any) -> Any:
            calls[0] += 1
            return split(text, *args, **kwargs)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(Text, "split", spy)
            widget.set_data(("a", "B", "c"))
            await pilot.pause()
        assert calls[0] == 0
        assert widget.render_line(1).text == "B"
        drawn = [(line.plain, line.spans) for line in widget._lines_of(widget.render())]
        assert drawn == [("a", [Span(0, 1, "bold")]), ("B", [Span(0, 1, "bold")]),
                         ("c", [Span(0, 1, "bold")])]
