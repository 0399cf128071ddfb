"""The game table's widgets: header bar, table piles, recent plays, hand, seats, score, hints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.content import Content

from casino_tui.engine import Card, Pile

from ..cardfmt import FACE_BG, HIGHLIGHT_BG, RECENT_BG, SELECTED_BG, CardPainter
from ..session import SideCounts
from .base import DataWidget

# ---------------------------------------------------------------------------- header bar


@dataclass(frozen=True)
class InfoData:
    left: str
    badge: str = ""


class InfoBar(DataWidget[InfoData]):
    """One line: preset, round, deal, stock and target; a "LAST DEAL" badge on the right."""

    def render(self) -> Text:
        d = self.data
        if d is None:
            return Text()
        width = self.size.width
        out = Text(" " + d.left, style="bold")
        if d.badge:
            badge = Text(f" {d.badge} ", style="bold reverse")
            pad = max(1, width - out.cell_len - badge.cell_len - 1)
            out.append(" " * pad)
            out.append_text(badge)
        out.truncate(width)
        return out


# ---------------------------------------------------------------------------- table piles


@dataclass(frozen=True)
class TableData:
    piles: tuple[Pile, ...]
    owner_names: tuple[str, ...]
    painter: CardPainter
    highlight: frozenset[int] = frozenset()  # piles the previewed move uses
    selected: frozenset[int] = frozenset()  # free selection
    cursor: int | None = None
    recent: frozenset[int] = frozenset()  # piles a computer just made


class TableView(DataWidget[TableData]):
    """The piles on the table, laid out left to right and wrapped to the width."""

    def _token(self, i: int, pile: Pile, d: TableData) -> Text:
        sym = d.painter.symbols
        selected = i in d.selected
        cursor = i == d.cursor
        if selected and cursor:
            mark = "»" if sym else "*"
        elif selected:
            mark = "+"
        elif cursor:
            mark = "›" if sym else ">"
        else:
            mark = " "
        if selected:
            bg = SELECTED_BG
        elif i in d.highlight:
            bg = HIGHLIGHT_BG
        elif i in d.recent:
            bg = RECENT_BG
        else:
            bg = FACE_BG
        tok = Text(mark, style="bold")
        tok.append_text(d.painter.pile_text(pile, d.owner_names, bg,
                                            underline=i in d.highlight or cursor))
        return tok

    def render(self) -> Text:
        d = self.data
        if d is None:
            return Text()
        if not d.piles:
            return Text(" The table is empty.", style="dim italic")
        width = max(10, self.size.width)
        lines: list[Text] = []
        line = Text()
        for i, pile in enumerate(d.piles):
            tok = self._token(i, pile, d)
            if line.cell_len and line.cell_len + 2 + tok.cell_len > width:
                lines.append(line)
                line = Text()
            if line.cell_len:
                line.append("  ")
            line.append_text(tok)
        lines.append(line)
        return Text("\n").join(lines)


@dataclass(frozen=True)
class RecentData:
    lines: tuple[tuple[bool, str], ...]  # (is_note, text)


class RecentPlays(DataWidget[RecentData]):
    """What the other players did since your last move (stays until you play). Its height is
    fixed (one line per other player, at most three) so the table never jumps."""

    def render(self) -> Text:
        d = self.data
        if d is None or not d.lines:
            return Text()
        width = self.size.width
        lines = []
        for note, text in d.lines:
            line = Text()
            line.append(" ▸ ", style="bold")
            line.append(text, style="italic" if note else "")
            line.truncate(width, overflow="ellipsis")
            lines.append(line)
        return Text("\n").join(lines)


# ---------------------------------------------------------------------------- hand


@dataclass(frozen=True)
class HandData:
    cards: tuple[Card, ...] | None  # None: hidden (hot seat), show backs
    count: int
    selected: int | None
    painter: CardPainter
    active: bool  # it is this hand's turn


class HandView(DataWidget[HandData]):
    """The hand as small cards, numbered 1-9; the chosen card is drawn with a heavy frame."""

    def render(self) -> Text:
        d = self.data
        if d is None:
            return Text()
        p = d.painter
        top, mid, bot = Text(" "), Text(" "), Text(" ")
        if d.count == 0:
            return Text("\n (no cards in hand)", style="dim italic")
        frame = Style(color="#808080")
        chosen = Style(color="#ffaf00", bold=True)
        for i in range(d.count):
            if i:
                for t in (top, mid, bot):
                    t.append(" ")
            sel = d.selected == i and d.cards is not None
            style = chosen if sel else frame
            h, v = ("━", "┃") if sel else ("─", "│")
            tl, tr, bl, br = ("┏", "┓", "┗", "┛") if sel else ("┌", "┐", "└", "┘")
            num = str(i + 1) if d.cards is not None and i < 9 else h
            top.append(tl + num + h * (3 - len(num)) + tr, style=style)
            mid.append(v, style=style)
            if d.cards is None:
                mid.append(p.back() * 3, style=Style(color="#5f87af", bgcolor="#303a4a"))
            else:
                card = d.cards[i]
                bg = HIGHLIGHT_BG if sel else FACE_BG
                mid.append_text(p.face(card, bg, width=3, underline=sel))
            mid.append(v, style=style)
            bot.append(bl + h * 3 + br, style=style)
        return Text("\n").join([top, mid, bot])


# ---------------------------------------------------------------------------- seats


@dataclass(frozen=True)
class SeatData:
    name: str
    detail: str  # computer level or "person"
    partner: bool
    hand_size: int
    taken: int
    sweeps: int
    dealer: bool
    to_move: bool
    thinking: bool
    painter: CardPainter


class SeatBox(DataWidget[SeatData]):
    """Another player: name, cards in hand as backs, cards taken, sweeps."""

    def set_data(self, data: SeatData) -> bool:
        changed = super().set_data(data)
        if changed:
            self.border_title = Content(f"{data.name} · {data.detail}" if data.detail
                                        else data.name)  # a name is never markup
            self.border_subtitle = "thinking…" if data.thinking else (
                "to play" if data.to_move else "partner" if data.partner else "")
            self.set_class(data.to_move, "-to-move")
        return changed

    def render(self) -> Text:
        d = self.data
        if d is None:
            return Text()
        width = self.size.width
        top = Text(d.painter.back() * d.hand_size if d.hand_size else "no cards",
                   style="#5f87af" if d.hand_size else "dim")
        if d.dealer:
            tag = "dealer" if width - top.cell_len >= 7 else "D"
            top.append(" " * max(1, width - top.cell_len - len(tag)))
            top.append(tag, style="italic")
        sw = d.sweeps
        variants = [
            f"{d.taken} taken · {sw} sweep" + ("" if sw == 1 else "s"),
            f"{d.taken} taken · {sw} sw",
            f"{d.taken} tk · {sw} sw",
        ]
        counts = next((v for v in variants if len(v) <= width), variants[-1])
        return Text("\n").join([top, Text(counts)])


# ---------------------------------------------------------------------------- score


@dataclass(frozen=True)
class ScoreData:
    headers: tuple[str, ...]
    game: tuple[int, ...]
    target: int
    counts: tuple[SideCounts, ...]
    suit_label: str
    big_casino: Card
    little_casino: Card
    painter: CardPainter
    highlight: int | None = None  # the viewer's side


class ScorePanel(DataWidget[ScoreData]):
    """Game score per side and this round's running counts."""

    def render(self) -> Text:
        d = self.data
        if d is None:
            return Text()
        n = len(d.headers)
        width = self.size.width
        label_w = 8
        col = max(3, (width - label_w) // max(1, n))
        p = d.painter
        rows: list[tuple[str, list[str]]] = [
            ("Game", [str(g) for g in d.game]),
            ("Cards", [str(c.cards) for c in d.counts]),
            (d.suit_label, [str(c.suit) for c in d.counts]),
            ("Aces", [str(c.aces) for c in d.counts]),
            (p.label(d.big_casino), ["✓" if d.big_casino in c.casinos else "·"
                                     for c in d.counts]),
            (p.label(d.little_casino), ["✓" if d.little_casino in c.casinos else "·"
                                        for c in d.counts]),
            ("Sweeps", [str(c.sweeps) for c in d.counts]),
        ]
        out = Text(" " * label_w)
        for i, h in enumerate(d.headers):
            style = "bold underline" if i == d.highlight else "bold"
            out.append(h[:col - 1].rjust(col), style=style)
        for r, (label, vals) in enumerate(rows):
            out.append("\n")
            out.append(label.ljust(label_w)[:label_w], style="bold" if r == 0 else "dim")
            for i, v in enumerate(vals):
                style = "bold" if r == 0 else ""
                if i == d.highlight and r == 0:
                    style = "bold reverse"
                out.append(v.rjust(col), style=style)
        out.append("\n")
        out.append(f"to {d.target}".rjust(label_w + col * n), style="dim italic")
        return out


# ---------------------------------------------------------------------------- status lines


@dataclass(frozen=True)
class LineData:
    text: str
    kind: str = "info"  # info, move, error, thinking, ok
    right: str = ""


class StatusLine(DataWidget[LineData]):
    """One line of status: the previewed move, an error, or who is thinking."""

    PREFIX: ClassVar[dict[str, str]] = {
        "info": "  ", "move": "▸ ", "error": "✗ ", "thinking": "… ", "ok": "✓ "}
    STYLE: ClassVar[dict[str, str]] = {
        "info": "dim", "move": "bold", "error": "bold #ff5f5f", "thinking": "italic",
        "ok": "bold"}

    def render(self) -> Text:
        d = self.data
        if d is None:
            return Text()
        width = self.size.width
        out = Text(self.PREFIX.get(d.kind, "  ") + d.text, style=self.STYLE.get(d.kind, ""))
        if d.right:
            right = Text(d.right, style="dim")
            room = width - right.cell_len - 1
            if out.cell_len > room:
                out.truncate(max(0, room - 1))
                out.append("…")
            out.append(" " * max(1, width - out.cell_len - right.cell_len))
            out.append_text(right)
        else:
            out.truncate(width, overflow="ellipsis")
        return out


class MessageLine(StatusLine):
    """The message under the move line (an engine's reason, a hint, whose turn it is): one
    line, or wrapped to up to ``MAX_LINES`` when it is long (the table gives up the room
    meanwhile), so a message is read in full at 80x24."""

    MAX_LINES: ClassVar[int] = 3

    def _lines(self, width: int) -> list[Text]:
        d = self.data
        if d is None or width <= 0:
            return [Text()]
        style = self.STYLE.get(d.kind, "")
        prefix = self.PREFIX.get(d.kind, "  ")
        text = Text(prefix + d.text, style=style)
        if text.cell_len + (len(d.right) + 1 if d.right else 0) <= width:
            return [text]
        lines = list(text.wrap(self.app.console, width - 2, overflow="fold"))
        lines = [Text("  ") + line if i else line for i, line in enumerate(lines)]
        if len(lines) > self.MAX_LINES:
            lines = lines[:self.MAX_LINES]
            last = lines[-1]
            last.truncate(max(0, width - 1))
            last.append("…", style=style)
        return lines

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return len(self._lines(width))

    def set_data(self, data: LineData) -> bool:
        width = self.size.width
        before = len(self._lines(width))
        changed = super().set_data(data)
        if changed and len(self._lines(width)) != before:
            self.refresh(layout=True)
        return changed

    def render(self) -> Text:
        width = self.size.width
        lines = self._lines(width)
        if len(lines) == 1:
            return super().render()
        return Text("\n").join(lines)


class KeyBar(DataWidget[tuple[tuple[str, str], ...]]):
    """The main keys of the screen: ``key description`` pairs, as many as fit."""

    def render(self) -> Text:
        d = self.data or ()
        width = self.size.width
        out = Text()
        for key, desc in d:
            piece = Text()
            piece.append(f" {key} ", style="bold reverse")
            piece.append(f" {desc} ")
            if out.cell_len + piece.cell_len > width:
                break
            out.append_text(piece)
        return out


# ---------------------------------------------------------------------------- move log


@dataclass(frozen=True)
class LogData:
    entries: tuple[tuple[str, bool], ...]  # (text, is_note), oldest first


class LogView(DataWidget[LogData]):
    """The latest moves in words, wrapped to the width; the newest line is at the bottom.

    Drawn from data (no scrolling widget), so a new line never needs a new layout."""

    def render(self) -> Text:
        d = self.data
        if d is None or not d.entries:
            return Text()
        width = max(8, self.size.width)
        height = max(1, self.size.height)
        lines: list[Text] = []
        console = self.app.console
        for text, note in reversed(d.entries):
            entry = Text(text, style="dim italic" if note else "")
            wrapped = entry.wrap(console, width)
            lines[:0] = list(wrapped)
            if len(lines) >= height:
                break
        return Text("\n").join(lines[-height:])
