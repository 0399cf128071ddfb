"""Fewer bytes for the same screen: what a redraw sends to the terminal.

Textual turns each update of the screen into terminal sequences one segment (a run of text in
one style) at a time, each as ``ESC[<its whole style>m<text>ESC[0m``: a run of box lines or
spaces in the same colours as the run before it repeats that style in full (and resets it) every
time, a segment with no text still sends its style, each line of an update ends with a newline
that the next line's cursor move makes moot, and a piece of a line that draws nothing still
moves the cursor there. A play in a game sent about 7.7 KB, 57% of it styles
(``python -m benchmarks.keybytes``); under ``casino-tui serve`` every byte is also encrypted by
the one server process that holds every player's connection.

:func:`compact_output` makes Textual's two kinds of full-screen update (``ChopsUpdate``, the
pieces of lines that changed; ``LayoutUpdate``, a region drawn whole) render through
:func:`render_chops` and :func:`render_layout` instead, which send the same pieces at the same
places in the same styles and characters, but a style only when it changes, and then only what
changes (the colours that differ, the attributes that are added; a full ``ESC[0;...m`` when one
is taken away), nothing for a segment without text, no newlines, no move for a piece that
draws nothing, and one reset at the end of the update (so the terminal is left as Textual
leaves it). Each piece still starts with its own cursor move, as Textual's does, so a character
that the player's terminal draws wider or narrower than Textual thinks it is cannot shift
anything past the piece it is in. Links (``style.link``) are sent as Textual sends them.

Textual's ANSI-to-truecolour line filter (on unless the theme is an ANSI one) rewrites every
new line of every widget to change the few styles it has to: ANSI colours (none in this game's
own styles) and dim text (blended into its colour; the game's hints and muted text use it).
:class:`QuickTruecolor` is that filter, which hands a line to Textual's only if one of its
styles needs changing, and otherwise returns it as it is (which is what Textual's returns for
it, as new objects): see ``CasinoApp.get_line_filters``.

Measured (``python -m benchmarks.keybytes --forked``): a play 7,660 -> 5,225 bytes, a Right
1,164 -> 830, the screen the same in every cell after every key.

A partial update is also made with less work (:func:`written_chops`, installed with the
rest): Textual asks every widget under the box around the regions to draw again for all its
lines and cuts them at every widget's edge, where only the pieces that meet a region are
written, each the first widget's over it. A play changes the top and the bottom of the
screen, so Textual asked all 16 widgets, containers and the screen behind them, twice a play;
now only the widgets that are first over a piece written (about 8 a frame) are asked, in the
same way, and only their lines that hold such a piece are cut.

This relies on Textual's private ``textual._compositor`` (its update classes, the
compositor's ``cuts``, ``visible_widgets``, ``_dirty_regions`` and ``_regions_to_spans``),
``Style._attributes`` and ``ANSIToTruecolor._terminal_theme``: ``tests/ui/test_output.py``
fails if the Textual methods this stands in for change (digests of their source), compares
what both send, and renders every partial update of a game both ways.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Any

from rich.color import ColorSystem
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual import _compositor
from textual.color import Color
from textual.filter import ANSIToTruecolor
from textual.geometry import Region
from textual.strip import SGR_STYLES, Strip

RESET = "\x1b[0m"
# What a style sends: the SGR codes of its attributes, of its colour and of its background
# (Textual's: ``Strip.render_ansi``).
_Parts = tuple[frozenset[str], str, str]
_PLAIN: _Parts = (frozenset(), "", "")
_LIMIT = 4096  # styles and changes of style remembered, at most (then forgotten, and learnt again)
# Textual's own ways of sending its updates (kept: tests compare what both send)
TEXTUAL_CHOPS = _compositor.ChopsUpdate.render_segments
TEXTUAL_LAYOUT = _compositor.LayoutUpdate.render_segments
TEXTUAL_PARTIAL = _compositor.Compositor.render_partial_update


class Encoder:
    """Segments into terminal sequences in one colour system, sending each style only as it
    changes. Remembers what each style and each change of style sends."""

    def __init__(self, color_system: ColorSystem) -> None:
        self.color_system = color_system
        self._parts: dict[Style, _Parts] = {}
        self._changes: dict[tuple[Style | None, Style | None], str] = {}

    def parts(self, style: Style | None) -> _Parts:
        if style is None:
            return _PLAIN
        parts = self._parts.get(style)
        if parts is None:
            if len(self._parts) >= _LIMIT:
                self._parts.clear()
            attributes = style._attributes & style._set_attributes
            codes = frozenset(code for bit, code in enumerate(SGR_STYLES)
                              if attributes & (1 << bit))
            color, bgcolor = style.color, style.bgcolor
            parts = self._parts[style] = (
                codes,
                "" if color is None else
                ";".join(color.downgrade(self.color_system).get_ansi_codes()),
                "" if bgcolor is None else
                ";".join(bgcolor.downgrade(self.color_system).get_ansi_codes(False)))
        return parts

    def change(self, old: Style | None, new: Style | None) -> str:
        """What turns the terminal's style from ``old``'s into ``new``'s (None: plain)."""
        key = (old, new)
        change = self._changes.get(key)
        if change is None:
            if len(self._changes) >= _LIMIT:
                self._changes.clear()
            change = self._changes[key] = self._change(self.parts(old), self.parts(new))
        return change

    @staticmethod
    def _change(old: _Parts, new: _Parts) -> str:
        if old == new:
            return ""
        attributes, color, bgcolor = new
        if new == _PLAIN:
            return RESET
        if not old[0] <= attributes:  # an attribute goes: from plain
            codes = ["0", *sorted(attributes, key=int)]
            codes += [code for code in (color, bgcolor) if code]
        else:
            codes = sorted(attributes - old[0], key=int)
            if color != old[1]:
                codes.append(color or "39")
            if bgcolor != old[2]:
                codes.append(bgcolor or "49")
        return f"\x1b[{';'.join(codes)}m"

    def segments(self, segments: Iterable[Segment], style: Style | None,
                 append: Callable[[str], Any]) -> Style | None:
        """Append what draws ``segments`` (the terminal in ``style``'s style: None, plain);
        return the style the terminal is left in."""
        change = self.change
        for text, new, _control in segments:
            if not text:
                continue
            if new is not style:
                if new is not None and new._link:
                    # as Textual sends a link (its own style, then plain again)
                    if style is not None:
                        append(RESET)
                    append(Strip.render_style(new, text, self.color_system))
                    style = None
                    continue
                sequence = change(style, new)
                if sequence:
                    append(sequence)
                style = new
            append(text)
        return style


_encoders: dict[ColorSystem, Encoder] = {}


def encoder(console: Console) -> Encoder:
    """The encoder of ``console``'s colour system (as Textual's ``Strip.render`` takes it)."""
    color_system = console._color_system or ColorSystem.TRUECOLOR
    found = _encoders.get(color_system)
    if found is None:
        found = _encoders[color_system] = Encoder(color_system)
    return found


def _move_to(x: int, y: int) -> str:
    return f"\x1b[{y + 1}H" if x == 0 else f"\x1b[{y + 1};{x + 1}H"


def render_chops(chops: Sequence[Mapping[int, Strip | None]], spans: list[tuple[int, int, int]],
                 chop_ends: list[list[int]], console: Console) -> str:
    """What Textual's ``ChopsUpdate.render_segments`` sends, compact: the same pieces of the
    same lines (``spans``: line, first and end column), each cut as Textual cuts it."""
    code = encoder(console)
    draw = code.segments
    out: list[str] = []
    append = out.append
    style: Style | None = None
    for y, x1, x2 in spans:
        line = chops[y]
        for end, (x, strip) in zip(chop_ends[y], line.items(), strict=False):
            if strip is None or x > x2 or end <= x1:
                continue
            if not (x2 > x >= x1 and end <= x2):
                strip = strip.crop(0, min(end, x2) - x)
            if not strip.cell_length:
                continue
            append(_move_to(x, y))
            style = draw(strip, style, append)
    if style is not None:
        append(RESET)
    return "".join(out)


def render_layout(strips: list[Iterable[Strip]], x: int, y: int, console: Console) -> str:
    """What Textual's ``LayoutUpdate.render_segments`` sends, compact: ``strips`` (each line's
    strips) from column ``x`` of line ``y`` down."""
    draw = encoder(console).segments
    out: list[str] = []
    append = out.append
    style: Style | None = None
    for row, line in enumerate(strips, y):
        append(_move_to(x, row))
        for strip in line:
            style = draw(strip, style, append)
    if style is not None:
        append(RESET)
    return "".join(out)


def _chops_update(self: _compositor.ChopsUpdate, console: Console) -> str:
    return render_chops(self.chops, self.spans, self.chop_ends, console)


def _layout_update(self: _compositor.LayoutUpdate, console: Console) -> str:
    return render_layout(self.strips, self.region.x, self.region.y, console)


def written_chops(compositor: _compositor.Compositor, crop: Region,
                  spans: Sequence[tuple[int, int, int]]) -> list[dict[int, Strip | None]]:
    """The pieces of lines (chops) a partial update of ``compositor`` writes, as Textual's
    ``Compositor._render_chops`` makes them, without asking for the lines of a widget that
    would fill none of them.

    Textual asks every widget under ``crop`` (the box around the regions to draw again: a
    play changes the top and the bottom of the screen, so every widget and the screen behind
    them) for all its lines, and cuts every line that holds a region into its pieces. Of
    those only the pieces that meet a span of the update are written (:func:`render_chops`:
    a piece from its first column to the one before the next cut, written where it meets
    ``[x1, x2)``), and each is filled by the first widget over it (front to back). So a
    widget is asked for its lines, in the same way as Textual asks (the same region), only
    if it is the first over such a piece on some line, and only those lines are cut: each
    piece written is the same piece of the same widget's line. The rest stay empty (never
    written); a widget not asked keeps what it was to draw again for when it is drawn (as
    Textual leaves a widget outside ``crop``)."""
    cuts = compositor.cuts
    chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
    # each line's pieces that are written and that no widget has filled yet, by first column
    wanted: dict[int, set[int]] = {}
    for y, x1, x2 in spans:
        if not 0 <= y < len(cuts):  # (off the screen: nothing of it can be cut)
            continue
        line_cuts = cuts[y]
        pieces = wanted.setdefault(y, set())
        for x, end in pairwise(line_cuts):
            if x < x2 and end > x1:
                pieces.add(x)
    crop_overlaps = crop.overlaps
    intersection = Region.intersection
    contains_region = Region.contains_region
    for widget, (region, clip) in compositor.visible_widgets.items():
        if not wanted:
            break
        if not crop_overlaps(clip):
            continue
        render_region = intersection(region, clip)
        left, top, width, height = render_region
        if not (width and height):
            continue
        right = left + width
        rows = [y for y in range(top, top + height)
                if (open_ := wanted.get(y)) and any(left <= x < right for x in open_)]
        if not rows:
            continue
        if contains_region(clip, region):  # (the region Textual asks for, exactly)
            strips = widget.render_lines(Region(0, 0, region.width, region.height))
        else:
            strips = widget.render_lines(
                Region(left - region.x, top - region.y, width, height))
        for y in rows:
            line_cuts = [cut for cut in cuts[y] if right >= cut >= left]
            chops_line = chops[y]
            pieces = wanted[y]
            for cut, strip in zip(line_cuts, strips[y - top].divide(
                    [cut - left for cut in line_cuts[1:]]), strict=False):
                if chops_line.get(cut) is None:
                    chops_line[cut] = strip
                    pieces.discard(cut)
            if not pieces:
                del wanted[y]
    return chops


def _partial_update(self: _compositor.Compositor) -> _compositor.ChopsUpdate | None:
    """Textual's ``Compositor.render_partial_update``, its pieces made by
    :func:`written_chops`."""
    update_regions = self._dirty_regions.copy()
    self._dirty_regions.clear()
    if not update_regions:
        return None
    crop = Region.from_union(list(update_regions)).intersection(self.size.region)
    spans = list(self._regions_to_spans(update_regions))
    chops = written_chops(self, crop, spans)
    chop_ends = [cut_set[1:] for cut_set in self.cuts]
    return _compositor.ChopsUpdate(chops, spans, chop_ends)


def compact_output() -> None:
    """Textual's screen updates sent compact from now on (in this process), a partial update
    made only of the pieces it writes (:func:`written_chops`)."""
    _compositor.ChopsUpdate.render_segments = _chops_update  # type: ignore[method-assign]
    _compositor.LayoutUpdate.render_segments = _layout_update  # type: ignore[method-assign]
    _compositor.Compositor.render_partial_update = _partial_update  # type: ignore[method-assign]


class QuickTruecolor(ANSIToTruecolor):
    """Textual's ANSI-to-truecolour filter that lets a line through as it is when none of its
    styles has anything to change (no ANSI colour, no dim colour, no control code)."""

    def __init__(self, source: ANSIToTruecolor) -> None:
        super().__init__(source._terminal_theme, enabled=source.enabled)
        self.source = source
        self._changes: dict[Style, bool] = {}

    def _changed(self, style: Style) -> bool:
        changes = self._changes.get(style)
        if changes is None:
            if len(self._changes) >= _LIMIT:
                self._changes.clear()
            color, bgcolor = style.color, style.bgcolor
            changes = self._changes[style] = (
                (color is not None and (color.triplet is None or bool(style.dim)))
                or (bgcolor is not None and bgcolor.triplet is None))
        return changes

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        changed = self._changed
        for _text, style, control in segments:
            if control is not None or (style is not None and changed(style)):
                return super().apply(segments, background)
        return segments


class QuickFilters:
    """An app's line filters as ``CasinoApp.get_line_filters`` gives them (asked for each
    widget drawn): Textual's enabled ones with its ANSI-to-truecolour filter replaced by a
    :class:`QuickTruecolor` of it (made once per filter Textual makes), then ``extra``; the same
    tuple while Textual's enabled filters stay the same."""

    def __init__(self, extra: Sequence[Any] = ()) -> None:
        self.extra = tuple(extra)
        self._textual: tuple[Any, ...] | None = None
        self._filters: tuple[Any, ...] = ()

    def __call__(self, textual: Sequence[Any]) -> tuple[Any, ...]:
        """The filters, for Textual's enabled ``textual``."""
        key = tuple(textual)
        if key != self._textual:
            self._textual = key
            quick = next((f for f in self._filters if isinstance(f, QuickTruecolor)), None)
            filters: list[Any] = []
            for line_filter in key:
                if type(line_filter) is ANSIToTruecolor:
                    if quick is None or quick.source is not line_filter:
                        quick = QuickTruecolor(line_filter)
                    line_filter = quick
                filters.append(line_filter)
            self._filters = (*filters, *self.extra)
        return self._filters
