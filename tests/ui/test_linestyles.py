"""A game widget's new line is made without Textual's ``Content`` (widgets.base.LineStyles),
into the strip Textual makes of it: the same segments, styles and meta (offsets), for lines
of any text and spans, with the styles kept from the lines made before."""

from __future__ import annotations

import inspect
from typing import Any, cast

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.style import Style as RichStyle
from rich.text import Text
from textual import content as textual_content
from textual._context import active_app
from textual.app import App
from textual.color import Color
from textual.content import Content
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions

from casino_tui.app.widgets.base import _ONE_LINE, LineStyles

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
