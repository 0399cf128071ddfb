"""The game with what each of its frames draws counted, for :mod:`benchmarks.framecount`.

``python -m benchmarks.framecounted FILE [casino-tui arguments]`` runs the game as ``python -m
casino_tui`` does, with Textual's compositor and the widgets' drawing watched: SIGUSR1 starts
a record (a key pressed), SIGUSR2 ends it (its screen quiet), and the records are written to
FILE (one JSON object a line) when the game ends. Each record holds the key's CPU of the main
thread and, for each frame drawn meanwhile: whether Textual drew the whole screen or a part,
the regions marked to draw, the spans and cells written, and how many of those cells changed
on the screen; per widget, how often the compositor asked it for its lines, how many lines
Textual styled (``StylesCache.render_line``) and how many the game's widgets gave as they
kept them or made around their content (``widgets.base.StyledLines``, where there is one: all
the lines a widget was asked for, Textual's among them); the layouts
(``Screen._refresh_layout``, ``Compositor.reflow``) and the widgets that asked for one. A
measuring tool, not a test: the counting itself costs CPU (the cells changed most).
"""

from __future__ import annotations

import json
import signal
import sys
import time
from collections import Counter
from typing import Any

Record = dict[str, Any]


def _name(widget: object) -> str:
    wid = getattr(widget, "id", None)
    return f"{type(widget).__name__}#{wid}" if wid else type(widget).__name__


def install(records: list[Record]) -> dict[str, Record | None]:
    """Watch Textual's drawing; ``records`` gets one record per SIGUSR1..SIGUSR2."""
    from textual import _compositor, _styles_cache
    from textual.geometry import Region
    from textual.screen import Screen
    from textual.strip import Strip
    from textual.widget import Widget

    from casino_tui.app.widgets import base

    now: dict[str, Record | None] = {"rec": None}
    screen_cells: dict[int, list[tuple[str, str] | None]] = {}
    compositor = _compositor.Compositor

    def start(signum: int, frame: object) -> None:
        now["rec"] = {"frames": [], "layouts": 0, "reflows": 0, "layout_widgets": [],
                      "asked": Counter(), "styled": Counter(), "given": Counter(),
                      "cpu0": time.thread_time()}

    def stop(signum: int, frame: object) -> None:
        rec = now["rec"]
        if rec is not None:
            rec["cpu_ms"] = round((time.thread_time() - rec.pop("cpu0")) * 1000, 3)
            records.append(rec)
        now["rec"] = None

    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)

    def cells_of(strip: Strip) -> list[tuple[str, str]]:
        return [(ch, str(seg.style or "")) for seg in strip if not seg.control
                for ch in seg.text]

    def owner(comp: _compositor.Compositor, x: int, y: int) -> str:
        best: tuple[Widget, int] | None = None
        for widget, (region, clip) in comp.visible_widgets.items():
            if region.contains(x, y) and clip.contains(x, y) and (
                    best is None or region.area < best[1]):
                best = (widget, region.area)
        return _name(best[0]) if best else "?"

    def put(comp: _compositor.Compositor, x: int, y: int, strip: Strip,
            per: dict[str, list[int]] | None) -> tuple[int, int]:
        row = screen_cells.setdefault(y, [])
        written = changed = 0
        for i, cell in enumerate(cells_of(strip)):
            at = x + i
            if at >= len(row):
                row.extend([None] * (at - len(row) + 1))
            differs = row[at] != cell
            row[at] = cell
            written += 1
            changed += differs
            if per is not None:
                counts = per.setdefault(owner(comp, at, y), [0, 0])
                counts[0] += 1
                counts[1] += differs
        return written, changed

    def shown(comp: _compositor.Compositor, update: object,
              per: dict[str, list[int]] | None) -> tuple[int, int]:
        """Put what ``update`` writes on the screen kept here: cells written, changed."""
        written = changed = 0
        if isinstance(update, _compositor.LayoutUpdate):
            for y, chops in enumerate(update.strips):
                x = 0
                for strip in chops:
                    w, c = put(comp, x, y, strip, per)
                    x += strip.cell_length
                    written, changed = written + w, changed + c
        elif isinstance(update, _compositor.ChopsUpdate):  # as its render_segments writes
            for y, x1, x2 in update.spans:
                for end, (x, chop) in zip(update.chop_ends[y], update.chops[y].items(),
                                          strict=False):
                    if chop is None or x > x2 or end <= x1:
                        continue
                    if not (x2 > x >= x1 and end <= x2):
                        chop = chop.crop(0, min(end, x2) - x)
                    w, c = put(comp, x, y, chop, per)
                    written, changed = written + w, changed + c
        return written, changed

    render_update = compositor.render_update

    def counted_update(self: _compositor.Compositor, full: bool = False,
                       screen_stack: Any = None, simplify: bool = False) -> Any:
        rec = now["rec"]
        dirty = list(self._dirty_regions)
        whole = full or self.size.region in self._dirty_regions
        spans = [] if whole or not dirty else list(self._regions_to_spans(dirty))
        t = time.thread_time()
        update = render_update(self, full, screen_stack, simplify)
        ms = (time.thread_time() - t) * 1000
        if rec is None:
            shown(self, update, None)  # the screen kept here follows every frame
            return update
        per: dict[str, list[int]] = {}
        written, changed = shown(self, update, per)
        crop = Region.from_union(dirty) if dirty else None
        rec["frames"].append({
            "full": whole, "regions": len(dirty), "spans": len(spans),
            "crop": list(crop) if crop else None, "ms": round(ms, 3), "written": written,
            "changed": changed, "per_widget": per})
        return update

    compositor.render_update = counted_update  # type: ignore[method-assign]

    reflow = compositor.reflow

    def counted_reflow(self: _compositor.Compositor, parent: Widget, size: Any) -> Any:
        rec = now["rec"]
        if rec is not None:
            rec["reflows"] += 1
        return reflow(self, parent, size)

    compositor.reflow = counted_reflow  # type: ignore[method-assign]

    refresh_layout = Screen._refresh_layout

    def counted_layout(self: Screen[Any], size: Any = None, scroll: bool = False) -> None:
        rec = now["rec"]
        if rec is not None:
            rec["layouts"] += 1
            rec["layout_widgets"].append(sorted(_name(w) for w in self._layout_widgets))
        refresh_layout(self, size, scroll)

    Screen._refresh_layout = counted_layout  # type: ignore[method-assign]

    render_lines = Widget.render_lines

    def asked(self: Widget, crop: Region) -> Any:
        rec = now["rec"]
        if rec is not None and not isinstance(self, base.SteadyLines):  # (counted there)
            rec["asked"][_name(self)] += 1
        return render_lines(self, crop)

    Widget.render_lines = asked  # type: ignore[method-assign]
    steady_lines = base.SteadyLines.render_lines

    def steady_asked(self: base.SteadyLines, crop: Region) -> Any:
        rec = now["rec"]
        if rec is not None:
            rec["asked"][_name(self)] += 1
        return steady_lines(self, crop)

    base.SteadyLines.render_lines = steady_asked  # type: ignore[method-assign]

    owners: dict[int, str] = {}  # id(styles cache) -> its widget
    render_widget = _styles_cache.StylesCache.render_widget

    def known(self: _styles_cache.StylesCache, widget: Widget, crop: Region) -> Any:
        owners[id(self)] = _name(widget)
        return render_widget(self, widget, crop)

    _styles_cache.StylesCache.render_widget = known  # type: ignore[method-assign]
    styled = _styles_cache.StylesCache.render_line

    def counted_styled(self: _styles_cache.StylesCache, *args: Any) -> Any:
        rec = now["rec"]
        if rec is not None:
            rec["styled"][owners.get(id(self), "?")] += 1
        return styled(self, *args)

    _styles_cache.StylesCache.render_line = counted_styled  # type: ignore[method-assign,assignment]
    kept = getattr(base, "StyledLines", None)  # (the game's widgets' own StylesCache)
    if kept is not None:
        given = kept.render_line

        def counted_given(self: Any, *args: Any) -> Any:
            rec = now["rec"]
            if rec is not None:
                rec["given"][owners.get(id(self), "?")] += 1
            return given(self, *args)

        kept.render_line = counted_given
    return now


def main() -> int:
    output, argv = sys.argv[1], sys.argv[2:]
    records: list[Record] = []
    install(records)
    from casino_tui.__main__ import main as game

    try:
        return game(argv)
    finally:
        with open(output, "w", encoding="utf-8") as out:
            for rec in records:
                out.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    sys.exit(main())
