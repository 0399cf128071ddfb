"""A widget drawn from one immutable value, refreshed only when that value changes.

The widgets using it have sizes fixed by the stylesheet, so a change never needs a new layout.

The game table updates many small widgets after every key; comparing the new data with the old
and refreshing only on a change keeps key-to-screen latency low (one widget re-rendered costs a
few milliseconds, twenty cost four times as much). Within a widget, only the lines whose text
changed are drawn again: choosing another card changes one line of the table's fourteen, and the
hand's frame never, so Textual styles, composes and sends only those lines (the CPU a key costs
the game, benchmarks/keycpu.py, and the bytes sent to the terminal).

A subclass draws its data in :meth:`DataWidget.render_data`; :meth:`DataWidget.render` keeps
the result until the data, the size or anything else (a ``refresh()``) changes.

Textual turns a widget's text into lines of segments all at once whenever any line of it is
to be drawn again (a widget of fourteen lines, one changed: fourteen lines styled and cut into
segments). :meth:`DataWidget.render_line` (Textual's line API) does it one line at a time
instead, for the lines Textual asks for, and keeps the lines it made: a line drawn again with
the same text (the key bar and the message lines going back and forth at each play, the rows of
a hand around the card chosen), at the same row or another (the log's lines moving up a row at
each move), costs nothing more than its row put into it.

A frame draws every widget under the region it covers, changed or not: a play changes the top
and the bottom of the screen, so every widget. :class:`SteadyLines` (the game widgets, and the
game's containers :class:`Row` and :class:`Column`) gives Textual the strips it gave last while
none of its lines was marked to be drawn again, where Textual styled each of its lines again
from its cache (its line filters, the cut to the region).

A line Textual is to style again (the widget's border, padding and colours around a content
line) needs no styling of Textual's: :class:`StyledLines` (each game widget's cache of styled
lines) puts a content line between what Textual put around the widget's content lines (found
once per size and style, by Textual's own styling of a probe line), and gives a border row as
Textual styled it before with the same size, colours, border and title (at each play the seat
to move goes from the normal border to the warning one and back).

A new line is made into its strip from the styles kept from the lines made before
(:class:`LineStyles`), not by Textual's ``Content``, which worked out every style of every
line again; and a drawing joined from its lines (:meth:`DataWidget._joined`) is compared and
drawn from those lines, not split again (:func:`split_of_joined`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Generic, Self, TypeVar, cast

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.text import Span, Text
from textual._context import active_app
from textual._styles_cache import StylesCache
from textual.containers import Horizontal, Vertical
from textual.content import Content, _strip_control_codes
from textual.css.scalar import Unit
from textual.dom import NoScreen
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.color import Color
    from textual.css.styles import RulesMap, StylesBase
    from textual.geometry import Spacing

D = TypeVar("D")
T = TypeVar("T")

# The rules a line that fits its widget is drawn with (DataWidget._line_strip): not wrapped.
_ONE_LINE = cast("RulesMap", {"text_wrap": "nowrap", "text_overflow": "clip"})
_MADE_STYLES = 512  # styles a widget keeps for making its lines (LineStyles), at most: a game
# 12 plays in keeps about 230 in all its widgets (about 60 KB), the table about 100
_NEWLINE = Text("\n")


def split_of_joined(lines: Sequence[Text]) -> list[Text] | None:
    """The lines ``Text("\n").join(lines).split("\n", allow_blank=True)`` gives, made from
    ``lines`` without joining and splitting: each line's text in a new ``Text`` of the joined
    text's settings (``Text.divide`` gives a line those of the text it divides: none here),
    its own style as a span over it, then its spans, those of no length left out (``divide``
    keeps a piece of a span only where it covers some text). None for fewer than two lines
    (``split`` gives a copy of the whole text, spans and all, as they are) or a line that
    ``join`` and ``split`` would not give back alone: a newline in it, or a span outside
    its text. Rich's Text is pinned with Textual: ``tests/ui/test_linestyles.py`` compares
    this with ``split`` over thousands of random lines."""
    if len(lines) < 2:
        return None
    out: list[Text] = []
    for line in lines:
        plain = line.plain
        if "\n" in plain:
            return None
        length = len(plain)
        piece = Text(plain)
        spans = piece._spans
        if line.style and length:
            spans.append(Span(0, length, line.style))
        for start, end, style in line._spans:
            if not 0 <= start <= end <= length:
                return None
            if end > start:
                spans.append(Span(start, end, style))
        out.append(piece)
    return out


class LineStyles:
    """What Textual's ``Content`` works out again for every line it makes into a strip, kept
    for the next line: each span's style converted from Rich's, each mix of styles that
    covers a run of text added up over the widget's style, and each Rich style of a run at
    its column (``rich_style_with_offset``, the segment's style). A game widget's new lines
    (a log entry, a pile chosen) are made of the same few styles at the same few columns, and
    Textual made each of them again with every line: about four fifths of a line's CPU.

    :meth:`strip` makes the strip Textual's ``Content.from_rich_text(line).render_strips``
    makes of a line that fits its width, unwrapped (the rules of :data:`_ONE_LINE`), segment
    for segment, its styles equal and their meta (the offsets) too: the same spans in the
    same order, the same sums of styles (``Style.__add__``, ``Style.combine``), the same runs
    of text. Everything kept is made by Textual's own methods from what is in its key, so the
    same key always gives the same style; the widget forgets it all when drawn whole (a
    theme changed, say: :meth:`DataWidget.refresh`)."""

    __slots__ = ("_made",)

    def __init__(self) -> None:
        self._made: dict[tuple[object, ...], Any] = {}

    def clear(self) -> None:
        self._made.clear()

    def strip(self, line: Text, style: Style, get_style: Callable[[str], Style],
              console: Any) -> Strip | None:
        """``line`` (one line, no tab, no wider than the widget) as Textual makes it over the
        widget's ``style`` (``get_style``: the widget's ``_get_style``; ``console``: the
        app's); None where Textual would change its text (a control code, which ``Content``
        strips) or a style names a component class (``.name``): Textual's way then."""
        plain = line.plain
        if _strip_control_codes(plain) != plain:
            return None
        made = self._made
        if len(made) >= _MADE_STYLES:
            made.clear()
        try:
            theme = active_app.get().ansi_theme
        except LookupError:
            theme = None
        # the spans as Content.from_rich_text makes them: the line's own style first
        # (stylize_before), then each span's, converted from Rich's
        spans: list[tuple[int, int, Style]] = []
        before = line.style
        if before:
            if isinstance(before, str):
                if before.startswith("."):
                    return None
                key: tuple[object, ...] = ("parsed", before)
                converted = made.get(key)
                if converted is None:  # (Content.render parses a text style it is given)
                    converted = made[key] = get_style(before)
                if plain:
                    spans.append((0, len(plain), converted))
            else:
                key = ("rich", before, theme)
                converted = made.get(key)
                if converted is None:
                    converted = made[key] = Style.from_rich_style(before, theme)
                if plain and converted:
                    spans.append((0, len(plain), converted))
        for start, end, span_style in line._spans:
            key = ("rich", span_style, theme)
            converted = made.get(key)
            if converted is None:
                rich = console.get_style(span_style) if isinstance(span_style, str) \
                    else span_style
                converted = made[key] = Style.from_rich_style(rich, theme)
            spans.append((start, end, converted))
        segments: list[Segment] = []
        add = segments.append
        if not spans:  # (Content.render gives the whole text, empty or not, in the base style)
            add(Segment(plain, self._at(style, (style,), 0)))
            return Strip(segments, cell_len(plain))
        # the runs of text between span edges, as Content.render finds them
        edges = [(0, False, 0), *((start, False, i) for i, (start, _, _) in enumerate(spans, 1)),
                 *((end, True, i) for i, (_, end, _) in enumerate(spans, 1)),
                 (len(plain), True, 0)]
        edges.sort(key=_edge_order)
        stack: list[int] = []
        styles = [style, *(span[2] for span in spans)]
        x = 0
        for (offset, leaving, index), (next_offset, _, _) in pairwise(edges):
            if leaving:
                stack.remove(index)
            else:
                stack.append(index)
            if next_offset > offset:
                text = plain[offset:next_offset]
                add(Segment(text, self._at(style, tuple(styles[i] for i in sorted(stack)), x)))
                x += len(text)
        return Strip(segments, cell_len(plain))

    def _at(self, style: Style, stack: tuple[Style, ...], x: int) -> RichStyle:
        """The segment's style of a run in the styles ``stack`` (the widget's first) at column
        ``x``: ``(style + Style.combine(stack)).rich_style_with_offset(x, 0)``, as
        ``_FormattedLine.to_strip`` makes it."""
        made = self._made
        key = ("at", style, stack, x)
        rich = made.get(key)
        if rich is None:
            total_key = ("sum", style, stack)
            total = made.get(total_key)
            if total is None:
                total = made[total_key] = style + Style.combine(stack)
            rich = made[key] = total.rich_style_with_offset(x, 0)
        return cast(RichStyle, rich)


def _edge_order(edge: tuple[int, bool, int]) -> tuple[int, bool]:
    return edge[0], edge[1]


class StyledLines(StylesCache):
    """Textual's cache of a widget's styled lines (``StylesCache``: its lines with border,
    padding and colours, before the app's line filters) that styles a content line without
    Textual: the segments Textual puts before and after the content of this widget's rows
    (left border and padding, right ones) are found once per size and style by Textual's own
    ``render_line`` around a probe segment, and each content line is put between them (as
    Textual's would be: ``test_redraw`` compares them segment by segment, meta included).
    Where Textual does more to a content line (a tint, an opacity, a text opacity, a hatch, an
    outline) it goes Textual's way.

    A line Textual styles (a border row; a content row that goes Textual's way) is kept by
    everything ``StylesCache.render_line`` reads: its row, the widget's size, content size,
    padding, gutter, border, outline, tint, text opacity, hatch, colours beneath and of the
    widget, opacity, ANSI theme, title alignments, and the border title (top row) or subtitle
    (bottom row), or the content line itself (the same line object: a game widget keeps the
    line it made for each text and row); asked for again, the same line object is given, with
    the app's line filter, Textual's cuts and escape codes each kept on it. Padding rows go
    Textual's way (it keeps them for the frame). A widget drawn whole (``DataWidget.refresh``)
    forgets them."""

    def __init__(self) -> None:
        super().__init__()
        # key -> (the content line it was made with, or None; the styled line), oldest first
        self._made: dict[tuple[object, ...], tuple[Strip | None, Strip]] = {}
        self._frame: tuple[object, ...] | None = None  # the key's part of this render
        # what Textual puts around the content lines of a frame (_content_edges), by frame
        self._edges: dict[tuple[object, ...],
                          tuple[list[Segment], list[Segment], RichStyle] | None] = {}

    def forget(self) -> None:
        """Drop every kept line and what Textual put around the content (the widget is drawn
        whole, from scratch)."""
        self._made.clear()
        self._edges.clear()

    def render(self, *args: Any, **kwargs: Any) -> list[Strip]:
        self._frame = None  # read again for each render (the widget's styles, its size...)
        return super().render(*args, **kwargs)

    def render_line(self, styles: StylesBase, y: int, size: Size, content_size: Size,
                    padding: Spacing, base_background: Color, background: Color,
                    render_content_line: Callable[[int], Strip],
                    border_title: tuple[object, ...] | None,
                    border_subtitle: tuple[object, ...] | None, opacity: float,
                    ansi_theme: object, native_ansi: bool) -> Strip:
        frame = self._frame
        if frame is None:
            frame = self._frame = (
                size, content_size, padding, styles.gutter, styles.border, styles.outline,
                styles.tint, styles.text_opacity,
                styles.hatch if styles.has_rule("hatch") else None, base_background,
                background, opacity, id(ansi_theme), native_ansi, styles.border_title_align,
                styles.border_subtitle_align)
        border = cast("tuple[tuple[str, object], ...]", frame[4])
        content: Strip | None = None
        if border[0][0] and y == 0:
            key: tuple[object, ...] = (frame, y, border_title)
        elif border[2][0] and y == size.height - 1:
            key = (frame, y, border_subtitle)
        else:
            gutter = cast("Spacing", frame[3])
            content_y = y - gutter.top
            if not (0 <= content_y < content_size.height and y < size.height - gutter.bottom):
                return super().render_line(
                    styles, y, size, content_size, padding, base_background, background,
                    render_content_line, cast(Any, border_title), cast(Any, border_subtitle),
                    opacity, cast(Any, ansi_theme), native_ansi)
            content = render_content_line(content_y)
            key = (frame, y, id(content))
        made = self._made
        kept = made.pop(key, None)
        if kept is not None and kept[0] is content:
            made[key] = kept  # (the most recently used last)
            return kept[1]
        if content is None:
            strip = super().render_line(
                styles, y, size, content_size, padding, base_background, background,
                render_content_line, cast(Any, border_title), cast(Any, border_subtitle),
                opacity, cast(Any, ansi_theme), native_ansi)
        else:
            all_edges = self._edges
            if frame in all_edges:
                edges = all_edges[frame]
            else:
                edges = self._content_edges(
                    styles, y, size, content_size, padding, base_background, background,
                    border_title, border_subtitle, opacity, ansi_theme, native_ansi)
                if len(all_edges) >= 4:  # (the seat to move's box goes between two)
                    del all_edges[next(iter(all_edges))]
                all_edges[frame] = edges
            if edges is not None:  # Textual's line, without Textual making it again
                before, after, inner = edges
                # (not kept: made again this way costs little more than finding it kept, and
                # kept lines hold their filtered and cut copies: memory each game keeps)
                return Strip([*before, *content.adjust_cell_length(content_size.width, inner),
                              *after], size.width)
            else:
                line = content
                strip = super().render_line(
                    styles, y, size, content_size, padding, base_background, background,
                    lambda _y: line, cast(Any, border_title), cast(Any, border_subtitle),
                    opacity, cast(Any, ansi_theme), native_ansi)
        if len(made) >= size.height + 4:  # bounded: about two drawings of the lines that change
            del made[next(iter(made))]  # (the least recently used goes)
        made[key] = (content, strip)
        return strip

    def _content_edges(self, styles: StylesBase, y: int, size: Size, content_size: Size,
                       padding: Spacing, base_background: Color, background: Color,
                       border_title: tuple[object, ...] | None,
                       border_subtitle: tuple[object, ...] | None, opacity: float,
                       ansi_theme: object, native_ansi: bool,
                       ) -> tuple[list[Segment], list[Segment], RichStyle] | None:
        """What Textual puts around a content line of this frame (row ``y``): the segments
        before it (the left border, the left padding) and after it, and the style it pads the
        line to the content's width with; None when Textual does more to a content line than
        put it between them (a tint, an opacity, a text opacity, a hatch, an outline), or when
        its line made around a probe does not hold the probe's segment once and whole."""
        hatch = styles.hatch if styles.has_rule("hatch") else None
        if (styles.tint.a or opacity != 1.0 or styles.text_opacity != 1.0
                or (hatch is not None and hatch != "none")
                or any(edge for edge, _ in styles.outline) or content_size.width <= 0):
            return None
        probe = Segment("\x00" * content_size.width)
        line = list(super().render_line(
            styles, y, size, content_size, padding, base_background, background,
            lambda _y: Strip([probe], content_size.width), cast(Any, border_title),
            cast(Any, border_subtitle), opacity, cast(Any, ansi_theme), native_ansi))
        at = [i for i, segment in enumerate(line) if segment is probe]
        if len(at) != 1:
            return None
        inner = self.get_inner_outer(base_background, background)[0].rich_style
        return line[:at[0]], line[at[0] + 1:], inner


class SteadyLines(Widget):
    """A widget whose drawing Textual asks for again while none of its lines changed (every
    widget under the region of the screen a frame draws: the game's containers, and its
    widgets whose data stayed as it was) gives the strips it gave last, where Textual would
    style each of its lines again from its cache of lines (its line filters, the crop).

    Textual marks the lines to draw again in the widget's styles cache (a refresh, a new size,
    a style or theme change), and the strips depend only on those lines, the region asked for,
    the widget's size and the app's line filters."""

    _steady: tuple[tuple[object, ...], list[Strip]] | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        cache = self._styles_cache
        key = (crop, self.outer_size, *self.app.get_line_filters())
        steady = self._steady
        if (steady is not None and steady[0] == key and not cache._dirty_lines
                and all(y in cache._cache for y in crop.line_range)):
            return steady[1]
        strips = self._render_lines(crop)
        self._steady = (key, strips) if not self.auto_links else None
        return strips

    def _render_lines(self, crop: Region) -> list[Strip]:
        """Textual's ``render_lines``: the widget's lines styled, those not marked to be drawn
        again from Textual's cache."""
        return super().render_lines(crop)


class Row(Horizontal, SteadyLines):
    """Textual's ``Horizontal``, its drawing kept while unchanged (:class:`SteadyLines`)."""

    auto_links = False


class Column(Vertical, SteadyLines):
    """Textual's ``Vertical``, its drawing kept while unchanged (:class:`SteadyLines`)."""

    auto_links = False


class DataWidget(SteadyLines, Generic[D]):
    """``set_data(value)`` stores ``value`` and refreshes the widget if it differs."""

    # No links in what these widgets draw (a click is handled by the widget itself): Textual
    # would otherwise look for links in every line of every draw, about a tenth of the CPU a
    # key costs the game (benchmarks/keycpu.py).
    auto_links = False
    # Drawn line by line (render_line); False for a widget whose lines mostly all change at
    # once into lines never drawn before, which Textual draws more cheaply as a whole.
    line_by_line: bool = True

    def __init__(self, data: D | None = None, *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        # Textual's cache of the widget's styled lines, keeping those styled before
        self._styles_cache = self._styled = StyledLines()
        self._data: D | None = data
        self._title: str | None = None
        # what render_data() drew: (the data, the size, the text), until a refresh() says that
        # something else changed
        self._drawn: tuple[D | None, Size, Text] | None = None
        # the drawn text's lines (None: not drawn line by line), for render_line
        self._split: tuple[Text, int, list[Text] | None] | None = None
        # the lines of the texts split last (the drawn one and the new one): each text is
        # split once, not once to compare it and again to draw it
        self._splits: list[tuple[Text, list[Text]]] = []
        # lines made into strips at row 0: (text, spans, style, width, base style) -> strip,
        # the least recently drawn first
        self._strips: dict[tuple[object, ...], Strip] = {}
        # a redraw of the whole widget (redraw()) keeps what was drawn and the strips: the
        # drawing is kept with its data and size, and a strip's key holds all that makes it
        # (its line's text, spans and style, the width, the widget's own style)
        self._keep_strips = False
        self._size_now: Size | None = None  # the size while Textual draws lines (_render_lines)
        # what _for_width() made last: (the data, the width, what was made)
        self._by_width: tuple[D | None, int, object] | None = None
        self._line_styles = LineStyles()  # the styles its lines were made of, for the next

    @property
    def data(self) -> D | None:
        return self._data

    def _for_width(self, width: int, make: Callable[[int], T]) -> T:
        """``make(width)`` for the widget's data, made again only when the data (another
        object) or the width changed: a change of data asks for it three times (the height
        before and after, then the drawing), and wrapping is the costly part. What ``make``
        returns must never be changed once made."""
        made = self._by_width
        if made is not None and made[0] is self._data and made[1] == width:
            return cast(T, made[2])
        value = make(width)
        self._by_width = (self._data, width, value)
        return value

    def set_data(self, data: D) -> bool:
        if data == self._data:
            return False
        drawn = self._drawn
        self._data = data
        size = self.size  # (Textual finds it on the screen at each call: asked once)
        if drawn is None or drawn[1] != size or not self.is_mounted:
            self.redraw()
            return True
        new = self._render_at(size)
        width = size.width
        # drawn line by line, a line the text does not reach is blank: a text of more or fewer
        # lines than before changes only the lines that differ (the log's first entries)
        ragged = self.line_by_line and self._lines_at(new, width) is not None
        rows = changed_rows(drawn[2], new, width, ragged=ragged,
                            lines=(self._lines_of(drawn[2]), self._lines_of(new)))
        if rows is None:
            self.redraw()
        elif rows:  # only those lines: the text of the others is what is on the screen
            regions = tuple(Region(0, y, width, 1) for y in rows)
            if not self._repaint(regions):
                super().refresh(*regions)
        return True

    def render_data(self) -> Text:
        """The widget's content drawn from :attr:`data` (subclasses draw here)."""
        return Text()

    def render(self) -> Text:
        return self._render_at(self.size)

    def _render_at(self, size: Size) -> Text:
        """:meth:`render` with the widget's size (``self.size``) given."""
        drawn = self._drawn
        if drawn is not None and drawn[0] is self._data and drawn[1] == size:
            return drawn[2]
        text = self.render_data()
        self._drawn = (self._data, size, text)
        return text

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> Self:
        if not self._keep_strips:  # something besides the data changed (a theme, say)
            self._drawn = None  # draw it all again, every line made again
            self._strips.clear()
            self._styled.forget()
            self._line_styles.clear()
        if repaint and not layout and not recompose and self._repaint(regions):
            return self
        super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)
        return self

    def _repaint(self, regions: tuple[Region, ...]) -> bool:
        """Textual's ``refresh(*regions)`` of a repaint alone, the widget given to its screen
        to draw at once: False (nothing done) when anything else is pending (a layout, a
        restyle, a scroll) or the widget is not on a screen, for Textual's own way then.

        Textual marks the widget dirty and prompts the widget's own message queue; on its
        idle, the widget posts an ``Update`` to its screen, which adds it to the widgets to
        draw and prompts its own queue (its idle starts the frame's timer): two tasks woken
        and three messages handled per widget changed, eight widgets or so at each play,
        twice a play. Here the widget is added to them as the screen's ``_on_update`` adds it,
        with ``Widget._check_refresh``'s conditions (displayed, the screen drawn), and the
        screen prompted: the same frame, drawn from the same dirty regions (Textual's private
        ``_dirty_widgets``, ``_compositor`` and widget flags: ``tests/ui/test_repaint.py``
        fails if the methods this does the work of change)."""
        if (not self._is_mounted or self._closing or self._parent is None
                or self._layout_required or self._scroll_required
                or self._refresh_styles_required or self._recompose_required):
            return False
        try:
            screen = self.screen
        except NoScreen:
            return False
        # Widget.refresh(*regions), repaint=True
        self._layout_cache.clear()
        self._set_dirty(*regions)
        self.clear_cached_dimensions()
        self._rich_style_cache.clear()
        # Widget._check_refresh, then Screen._on_update
        if self.display and screen in screen._compositor:
            screen._dirty_widgets.add(self)
            screen.check_idle()
        return True

    def redraw(self, *, layout: bool = False) -> None:
        """Draw the whole widget again (its data, its size or its border changed), keeping
        its drawing (kept by its data and size: :meth:`_render_at`) and the strips already
        made: a line drawn before (the message lines and a seat's box going back and forth
        at each play) costs only its row put into it."""
        self._keep_strips = True
        try:
            self.refresh(layout=layout)
        finally:
            self._keep_strips = False

    @contextmanager
    def keeping_strips(self) -> Iterator[None]:
        """Within it, Textual's own refreshes of the widget (a style or a border title set)
        keep its drawing and the strips already made, as :meth:`redraw` does."""
        keep, self._keep_strips = self._keep_strips, True
        try:
            yield
        finally:
            self._keep_strips = keep

    def _render_lines(self, crop: Region) -> list[Strip]:
        # Textual asks render_line for each line it draws again: the widget's size is found
        # once for them all (Textual finds the widget on the screen at each call)
        self._size_now = self.size
        try:
            return super()._render_lines(crop)
        finally:
            self._size_now = None

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of the content, made into a strip only when it was not made before
        (Textual's own render_line makes every line of the widget when any is redrawn). A
        text Textual would wrap or align as a whole goes Textual's way."""
        size = self._size_now or self.size
        width = size.width
        lines = self._lines_at(self._render_at(size), width) if self.line_by_line else None
        if lines is None:
            return super().render_line(y)
        style = self.visual_style
        if y >= len(lines):
            return Strip.blank(width, style.rich_style)
        line = lines[y]
        key = (line.plain, tuple(line.spans), line.style, width, style)
        strips = self._strips
        strip = strips.pop(key, None)
        if strip is None:
            if len(strips) >= 4 * max(1, size.height) + 8:
                # bounded: the lines of the last few drawings (the least recently drawn goes)
                del strips[next(iter(strips))]
            strip = self._line_strip(line, width, style)
        strips[key] = strip  # (the most recently drawn last)
        # the row goes into each segment's offset, which text selection reads; the strip keeps
        # the one it made for each row (Strip.apply_offsets), so a line moved to another row
        # (the log moving up at each play) is not made again
        return strip.apply_offsets(0, y) if y else strip

    def _line_strip(self, line: Text, width: int, style: Style) -> Strip:
        """One line as Textual's ``Visual.to_strips`` makes it in the widget's first row: the
        content's own ``render_strips``, which is all that ``to_strips`` does for a line drawn
        line by line (no text selected, no links, no padding, aligned left at the top:
        :meth:`_lines_at`), without the rest (a style for the padding it does not add, made
        at every call: a fifth of the line's CPU)."""
        styles = self.styles
        if not styles.line_pad and width > 0:
            quick = self._line_styles.strip(line, style, self._get_style, self.app.console)
            if quick is not None:
                return quick
        content = Content.from_rich_text(line, console=self.app.console)
        # (the widget's styles as the rules, as to_strips passes them: read with .get)
        rules = cast("RulesMap", styles)
        if not styles.line_pad:
            # A line that fits (_lines_at) is the same strip unwrapped: render_strips reads only
            # these rules and the alignment (left), and without wrapping it skips finding where
            # to break the line, cutting it there and trimming and padding the pieces (about a
            # third of a new line's CPU).
            rules = _ONE_LINE
        strips = content.render_strips(width, 1, style, RenderOptions(self._get_style, rules))
        return strips[0] if strips else Strip.blank(0)

    def _lines_at(self, text: Text, width: int) -> list[Text] | None:
        """``text``'s lines when each can be drawn alone as Textual would draw them among the
        others: none wider than the widget (``width``: no wrapping), aligned left at the top,
        no text selected; else None."""
        split = self._split
        if split is not None and split[0] is text and split[1] == width:
            return split[2]
        lines: list[Text] | None = self._lines_of(text)
        styles = self.styles
        if (self.text_selection is not None or styles.text_align not in ("left", "start")
                or tuple(styles.content_align) != ("left", "top")
                or any(line.cell_len > width or "\t" in line.plain for line in lines or ())):
            lines = None
        self._split = (text, width, lines)
        return lines

    def _joined(self, lines: Sequence[Text]) -> Text:
        """``Text("\\n").join(lines)`` (a subclass's drawing, from its lines), with the lines
        splitting it gives kept for :meth:`_lines_of`, made from ``lines`` without splitting
        it (:func:`split_of_joined`): a widget's new drawing is split to be compared with the
        one on the screen, a twelve-line table about 190 µs, made so about 80."""
        text = _NEWLINE.join(lines)
        split = split_of_joined(lines)
        if split is not None:
            self._splits = [(text, split), *self._splits[:1]]
        return text

    def _lines_of(self, text: Text) -> list[Text]:
        """``text`` split into its lines (kept for the last two texts split; never changed:
        a drawn text is not changed after it is drawn)."""
        splits = self._splits
        for done, lines in splits:
            if done is text:
                return lines
        lines = list(text.split("\n", allow_blank=True))
        self._splits = [(text, lines), *splits[:1]]
        return lines

    def box_height(self, content_lines: int) -> int:
        """The height this widget takes with ``content_lines`` lines of content (``height:
        auto``): its gutter added, its stylesheet's ``min-height`` and ``max-height`` (in
        cells) applied."""
        styles = self.styles
        height = content_lines + styles.gutter.height
        low, high = styles.min_height, styles.max_height
        if low is not None and low.unit == Unit.CELLS:
            height = max(height, int(low.value))
        if high is not None and high.unit == Unit.CELLS:
            height = min(height, int(high.value))
        return height

    def set_data_sized(self, data: D, content_lines: Callable[[int], int]) -> bool:
        """:meth:`set_data` for a widget whose height follows its content: a new layout (every
        widget placed again, the whole screen drawn again: several times the cost of drawing
        this one widget) only when its height really changes, not when only the number of its
        content lines does within its ``min-height`` and ``max-height``.
        ``content_lines(width)``: the lines its content takes at ``width``."""
        width = self.size.width
        before = self.box_height(content_lines(width))
        changed = DataWidget.set_data(self, data)  # (subclasses call this from set_data)
        if changed and self.box_height(content_lines(width)) != before:
            self.redraw(layout=True)
        return changed

    def set_title(self, title: str) -> bool:
        """Set the border title to ``title`` (plain text, never markup) if it differs: setting
        Textual's ``border_title`` repaints the widget even when the title is the same."""
        if title == self._title:
            return False
        self._title = title
        self.border_title = Content(title)
        return True


def changed_rows(old: Text, new: Text, width: int, *, ragged: bool = False,
                 lines: tuple[list[Text], list[Text]] | None = None) -> list[int] | None:
    """The lines of ``new`` that differ from those of ``old``, drawn ``width`` cells wide;
    None when lines cannot be compared one by one (the text's own settings differ, a line is
    wider than ``width``, which Textual would wrap or cut, or their number differs, unless
    ``ragged``: then a line only one of them has is a line that changed). ``lines``: the two
    texts already split into their lines."""
    # (a different base style is not one of them: each line has it, and is compared with it)
    if (old.justify, old.overflow, old.no_wrap, old.end, old.tab_size) != (
            new.justify, new.overflow, new.no_wrap, new.end, new.tab_size):
        return None
    if lines is None:
        lines = (list(old.split("\n", allow_blank=True)),
                 list(new.split("\n", allow_blank=True)))
    before, after = lines
    if len(before) != len(after) and not ragged:
        return None
    rows = []
    for y, (a, b) in enumerate(zip(before, after, strict=False)):
        if a.cell_len > width or b.cell_len > width:
            return None
        if a.plain != b.plain or a.spans != b.spans or a.style != b.style:
            rows.append(y)
    common = min(len(before), len(after))
    extra = (before if len(before) > len(after) else after)[common:]
    if any(line.cell_len > width for line in extra):
        return None
    rows.extend(range(common, common + len(extra)))
    return rows
