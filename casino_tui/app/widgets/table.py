"""The game table's widgets: header bar, table piles, recent plays, hand, seats, score, hints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message

from casino_tui.engine import Build, Card, Pile

from ..cardfmt import HIGHLIGHT_BG, RECENT_BG, SELECTED_BG, CardPainter, card_size
from ..session import SideCounts
from .base import DataWidget

# ---------------------------------------------------------------------------- header bar


@dataclass(frozen=True)
class InfoData:
    left: str
    badge: str = ""


class InfoBar(DataWidget[InfoData]):
    """One line: preset, round, deal, stock and target; a "LAST DEAL" badge on the right."""

    def render_data(self) -> Text:
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
    big: int = 0  # big cards (a large screen): their largest level (cardfmt.CARD_SIZES)


# A pile's place on the table widget: (pile, line, first column, last column + 1, lines).
PilePlace = tuple[int, int, int, int, int]

BIG_GAP = 2  # columns between two piles of big cards


class TableView(DataWidget[TableData]):
    """The piles on the table, laid out left to right and wrapped to the width: one line of
    small faces, or (``big``) rows of big cards of the largest level up to ``big`` that fits,
    a build's cards side by side over a caption with its value and owner. A click on a pile
    posts :class:`PileClicked`."""

    class PileClicked(Message):
        """A pile was clicked (or tapped)."""

        def __init__(self, view: TableView, index: int) -> None:
            super().__init__()
            self.view = view
            self.index = index

        @property
        def control(self) -> TableView:
            return self.view

    def __init__(self, data: TableData | None = None, *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(data, id=id, classes=classes)
        self._places: list[PilePlace] = []

    def _mark(self, i: int, d: TableData) -> str:
        sym = d.painter.symbols
        selected = i in d.selected
        cursor = i == d.cursor
        if selected and cursor:
            return "»" if sym else "*"
        if selected:
            return "+"
        if cursor:
            return "›" if sym else ">"
        return " "

    def _bg(self, i: int, d: TableData) -> str:
        if i in d.selected:
            return SELECTED_BG
        if i in d.highlight:
            return HIGHLIGHT_BG
        if i in d.recent:
            return RECENT_BG
        return d.painter.face_bg

    def _token(self, i: int, pile: Pile, d: TableData) -> Text:
        tok = Text(self._mark(i, d), style="bold")
        tok.append_text(d.painter.pile_text(pile, d.owner_names, self._bg(i, d),
                                            underline=i in d.highlight or i == d.cursor))
        return tok

    def _small(self, d: TableData, width: int) -> tuple[list[Text], list[PilePlace]]:
        lines: list[Text] = []
        places: list[PilePlace] = []
        line = Text()
        for i, pile in enumerate(d.piles):
            tok = self._token(i, pile, d)
            if line.cell_len and line.cell_len + 2 + tok.cell_len > width:
                lines.append(line)
                line = Text()
            if line.cell_len:
                line.append("  ")
            places.append((i, len(lines), line.cell_len, line.cell_len + tok.cell_len, 1))
            line.append_text(tok)
        lines.append(line)
        return lines, places

    def _block(self, i: int, pile: Pile, d: TableData, level: int) -> list[Text]:
        """A pile in big cards: a mark column, then the cards and a caption."""
        p = d.painter
        cards = pile.cards if isinstance(pile, Build) else (pile,)
        bg = self._bg(i, d)
        heavy = i == d.cursor or i in d.selected
        under = i in d.highlight or i == d.cursor
        frame = None
        if i == d.cursor:
            frame = Style(color="#ffffff", bold=True)
        elif i in d.selected:
            frame = Style(color=SELECTED_BG, bold=True)
        height = card_size(level)[1]
        rows = [Text() for _ in range(height)]
        for c in cards:
            for row, part in zip(rows, p.big_card(c, bg, level=level, heavy=heavy,
                                                  underline=under, frame_style=frame),
                                 strict=True):
                row.append_text(part)
        if isinstance(pile, Build):
            caption = Text(f"={pile.value_str()} {pile.kind} · {d.owner_names[pile.owner]}",
                           style="italic")
            caption.stylize("bold", 0, 1 + len(pile.value_str()))
        else:
            caption = Text()
        width = max(rows[0].cell_len, caption.cell_len)
        mark = self._mark(i, d)
        out = []
        for k, row in enumerate([*rows, caption]):
            line = Text(mark if k == height // 2 else " ", style="bold")
            line.append_text(row)
            line.pad_right(width - row.cell_len)
            out.append(line)
        return out

    def _big(self, d: TableData, width: int,
             level: int) -> tuple[list[Text], list[PilePlace]] | None:
        """Rows of big cards of ``level``, or None when they do not fit the widget."""
        lines: list[Text] = []
        places: list[PilePlace] = []
        row: list[Text] = []
        for i, pile in enumerate(d.piles):
            block = self._block(i, pile, d, level)
            w = block[0].cell_len
            if w > width:
                return None
            if row and row[0].cell_len + BIG_GAP + w > width:
                lines.extend(row)
                row = []
            if row:
                x = row[0].cell_len + BIG_GAP
                for line, part in zip(row, block, strict=True):
                    line.append(" " * BIG_GAP)
                    line.append_text(part)
            else:
                x = 0
                row = block
            places.append((i, len(lines), x, x + w, len(block)))
        lines.extend(row)
        if len(lines) > self.size.height:
            return None
        return lines, places

    def _layout(self, d: TableData) -> tuple[list[Text], list[PilePlace]]:
        width = max(10, self.size.width)
        for level in range(d.big, 0, -1):
            big = self._big(d, width, level)
            if big is not None:
                return big
        return self._small(d, width)

    def render_data(self) -> Text:
        d = self.data
        self._places = []
        if d is None:
            return Text()
        if not d.piles:
            return Text(" The table is empty.", style="dim italic")
        lines, self._places = self._layout(d)
        return self._joined(lines)

    def pile_at(self, x: int, y: int) -> int | None:
        """The pile drawn at ``(x, y)`` of the content (None: none), as last rendered."""
        for i, line, x0, x1, height in self._places:
            if line <= y < line + height and x0 <= x < x1:
                return i
        return None

    def pile_place(self, index: int) -> tuple[int, int] | None:
        """Where pile ``index`` was drawn: a cell of it (``x``, ``y`` of the content)."""
        for i, line, x0, _x1, height in self._places:
            if i == index:
                return x0 + 2, line + height // 2
        return None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = self.pile_at(offset.x, offset.y)
        if index is not None:
            event.stop()
            self.post_message(self.PileClicked(self, index))


@dataclass(frozen=True)
class RecentData:
    lines: tuple[tuple[bool, str], ...]  # (is_note, text)


class RecentPlays(DataWidget[RecentData]):
    """What the other players did since your last move (stays until you play): a play per
    line, a long one wrapped under itself rather than cut (a multi-card build, a new deal
    joined to a play), so it is read in full at 80x24. At least one line per other player
    (at most three: the stylesheet's min-height), so the table seldom moves; when the plays
    need more lines than the room left, the oldest go first (the log keeps them)."""

    BULLET: ClassVar[str] = " ▸ "

    def _entries(self, width: int) -> list[list[Text]]:
        """Each play's lines at ``width``, oldest first (never changed once made)."""
        return self._for_width(width, self._make_entries)

    def _make_entries(self, width: int) -> list[list[Text]]:
        d = self.data
        if d is None or not d.lines or width <= len(self.BULLET):
            return []
        console = self.app.console
        indent = len(self.BULLET)
        out = []
        for note, text in d.lines:
            body = Text(text, style="italic" if note else "")
            wrapped = list(body.wrap(console, width - indent, overflow="fold"))
            lines = []
            for i, part in enumerate(wrapped):
                line = Text(self.BULLET if i == 0 else " " * indent,
                            style="bold" if i == 0 else "")
                line.append_text(part)
                lines.append(line)
            out.append(lines)
        return out

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return sum(len(lines) for lines in self._entries(width))

    def set_data(self, data: RecentData) -> bool:
        return self.set_data_sized(data, lambda width: sum(map(len, self._entries(width))))

    def render_data(self) -> Text:
        height = max(1, self.size.height)
        shown: list[Text] = []
        for lines in reversed(self._entries(self.size.width)):  # the newest plays first
            if shown and len(shown) + len(lines) > height:
                break
            shown[:0] = lines
        if len(shown) > height:  # one play longer than the room: its start, then "…"
            shown = shown[:height]
            shown[-1] = last = shown[-1].copy()  # (the entries' own lines stay as made)
            last.truncate(max(1, self.size.width - 1))
            last.append("…")
        return self._joined(shown)


# ---------------------------------------------------------------------------- hand


@dataclass(frozen=True)
class HandData:
    cards: tuple[Card, ...] | None  # None: hidden (hot seat), show backs
    count: int
    selected: int | None
    painter: CardPainter
    active: bool  # it is this hand's turn
    big: int = 0  # big cards (a large screen): their largest level (cardfmt.CARD_SIZES)


class HandView(DataWidget[HandData]):
    """The hand as small cards (or big ones), numbered 1-9; the chosen card is drawn with a
    heavy frame. A click on a card posts :class:`CardClicked`."""

    class CardClicked(Message):
        """A card of the hand was clicked (or tapped)."""

        def __init__(self, view: HandView, index: int) -> None:
            super().__init__()
            self.view = view
            self.index = index

        @property
        def control(self) -> HandView:
            return self.view

    def _level(self, d: HandData) -> int:
        """The level of big cards the hand is drawn in (0: small ones): the largest up to
        ``big`` that fits."""
        for level in range(d.big, 0, -1):
            width, height = card_size(level)
            if 1 + d.count * (width + 1) <= self.size.width and height <= self.size.height:
                return level
        return 0

    def card_width(self) -> int:
        """How wide a card is drawn now (its frame included)."""
        d = self.data
        level = 0 if d is None else self._level(d)
        return card_size(level)[0] if level else 5

    def card_at(self, x: int, y: int) -> int | None:
        """The card of the hand drawn at ``(x, y)`` of the content (None: none)."""
        d = self.data
        if d is None or not d.count or x < 1:
            return None
        step = self.card_width() + 1
        i, within = divmod(x - 1, step)
        return i if i < d.count and within < step - 1 else None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = self.card_at(offset.x, offset.y)
        if index is not None:
            event.stop()
            self.post_message(self.CardClicked(self, index))

    def render_data(self) -> Text:
        d = self.data
        if d is None:
            return Text()
        if d.count == 0:
            return Text("\n (no cards in hand)", style="dim italic")
        level = self._level(d)
        if level:
            return self._render_big(d, level)
        p = d.painter
        top, mid, bot = Text(" "), Text(" "), Text(" ")
        frame = Style(color="#808080")
        chosen = Style(color="#ffaf00", bold=True)
        for i in range(d.count):
            if i:
                for t in (top, mid, bot):
                    t.append(" ")
            sel = d.selected == i and d.cards is not None
            style = chosen if sel else frame
            tl, tr, bl, br, h, v = p.frame(sel)
            num = str(i + 1) if d.cards is not None and i < 9 else h
            top.append(tl + num + h * (3 - len(num)) + tr, style=style)
            mid.append(v, style=style)
            if d.cards is None:
                mid.append(p.back() * 3, style=Style(color="#5f87af", bgcolor="#303a4a"))
            else:
                card = d.cards[i]
                bg = HIGHLIGHT_BG if sel else p.face_bg
                mid.append_text(p.face(card, bg, width=3, underline=sel))
            mid.append(v, style=style)
            bot.append(bl + h * 3 + br, style=style)
        return self._joined([top, mid, bot])

    def _render_big(self, d: HandData, level: int) -> Text:
        p = d.painter
        rows = [Text(" ") for _ in range(card_size(level)[1])]
        for i in range(d.count):
            if i:
                for t in rows:
                    t.append(" ")
            sel = d.selected == i and d.cards is not None
            number = str(i + 1) if d.cards is not None and i < 9 else ""
            if d.cards is None:
                parts = p.big_back(level)
            else:
                bg = HIGHLIGHT_BG if sel else p.face_bg
                parts = p.big_card(d.cards[i], bg, level=level, heavy=sel, underline=sel,
                                   number=number,
                                   frame_style=Style(color="#ffaf00", bold=True) if sel
                                   else None)
            for t, part in zip(rows, parts, strict=True):
                t.append_text(part)
        return self._joined(rows)


# ---------------------------------------------------------------------------- seats


@dataclass(frozen=True)
class SeatData:
    name: str
    detail: str  # computer level or "person"
    partner: bool
    hand_size: int
    taken: int
    sweeps: int | None  # None: the rules score no sweeps, so none are shown
    dealer: bool
    to_move: bool
    thinking: bool
    painter: CardPainter
    label: str = ""  # the seat's short label in the score panel (S, NW, ...)
    away: str = ""  # its person is away (a table on a server): "away 2m", shown literally


AWAY_STYLE = "bold #ffaf00"  # a seat whose person is away


def _sweeps_text(sweeps: int | None) -> str:
    """``2 sweeps``; nothing when there are none (or the rules score none)."""
    if not sweeps:
        return ""
    return f"{sweeps} sweep" + ("" if sweeps == 1 else "s")


def _spread(left: Text, right: Text, width: int) -> Text:
    """``left`` and ``right`` on one line of ``width``, ``right`` flush right."""
    out = left.copy()
    if right.cell_len:
        out.append(" " * max(1, width - left.cell_len - right.cell_len))
        out.append_text(right)
    return out


def _backs(d: SeatData) -> Text:
    out = Text()
    out.append(d.painter.backs(d.hand_size), style="#5f87af")  # a span: text after it is plain
    return out


class SeatBox(DataWidget[SeatData]):
    """Another player (two to four players): the name (and level, when it fits) as the title;
    the cards in hand as countable backs, cards taken, sweeps (where they score), dealer."""

    _to_move = False  # drawn as the seat to move (see _show_turn)
    _subtitle: str | None = None  # the border's subtitle set last

    def set_data(self, data: SeatData) -> bool:
        changed = super().set_data(data)
        if changed:
            # (each of these redraws the whole box, border and all: its lines as drawn)
            with self.keeping_strips():
                self._set_title()
                subtitle = "thinking…" if data.thinking else (
                    "to play" if data.to_move else "partner" if data.partner else "")
                if subtitle != self._subtitle:
                    self._subtitle = subtitle
                    self.border_subtitle = subtitle
                if data.to_move != self._to_move:
                    self._show_turn()
        return changed

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._show_turn())

    def _show_turn(self) -> None:
        """The seat to move: its border in the theme's warning colour, its title bold; the
        others as the stylesheet draws them. Set on the widget itself: a class for it made
        Textual match the app's whole stylesheet against the box again, about 0.7 ms of CPU
        twice a play (benchmarks/keycpu.py)."""
        d = self.data
        self._to_move = to_move = d is not None and d.to_move
        styles = self.styles
        if to_move:
            styles.border = ("round", self.app.theme_variables["warning"])
            styles.border_title_style = "bold"
        else:
            for rule in ("border_top", "border_right", "border_bottom", "border_left",
                         "border_title_style"):
                styles.clear_rule(rule)
        self.refresh()

    def on_resize(self) -> None:
        self._set_title()

    def _level_in_title(self) -> bool:
        d = self.data
        room = self.outer_size.width - 6  # corners, the lead-in rule and a space either side
        return d is not None and bool(d.detail) and len(f"{d.name} · {d.detail}") <= room

    def _set_title(self) -> None:
        d = self.data
        if d is None:
            return
        full = self._level_in_title()
        self.set_title(f"{d.name} · {d.detail}" if full else d.name)  # no markup

    def render_data(self) -> Text:
        d = self.data
        if d is None:
            return Text()
        width = self.size.width
        taken = Text(f"{d.taken} taken")
        empty = "no cards" if width >= 9 + taken.cell_len else "–"
        hand = _backs(d) if d.hand_size else Text.assemble((empty, "dim"))
        # the second line: sweeps (when there are any), else the level if the title has no
        # room for it; "dealer" on the right
        extra = Text(_sweeps_text(d.sweeps))
        if d.away:
            extra = Text.assemble((d.away, AWAY_STYLE), (" · " if extra else "", ""), extra)
        elif not extra and not self._level_in_title():
            extra = Text.assemble((d.detail, "dim italic"))
        dealer = Text.assemble(("dealer" if d.dealer else "", "italic"))
        if extra.cell_len + dealer.cell_len + 1 > width and d.dealer:
            dealer = Text.assemble(("D", "bold italic"))
        return self._joined([_spread(hand, taken, width), _spread(extra, dealer, width)])


@dataclass(frozen=True)
class SeatListData:
    seats: tuple[SeatData, ...]  # the other players, in playing order
    dealer: str  # the dealer's name


class SeatList(DataWidget[SeatListData]):
    """The other players of a five- or six-player table, one compact row each: short label,
    name, countable card backs and (as the width allows) level, cards taken and sweeps.

    Rows go down one column, or down two (west side left, east side right) when the panel is
    not tall enough. The dealer is named in the panel's title."""

    def set_data(self, data: SeatListData) -> bool:
        changed = super().set_data(data)
        if changed:
            self.set_title(f"Players · {data.dealer} deals")  # never markup
        return changed

    def _row_parts(self, d: SeatData, level: bool) -> tuple[str, str, Text, str, str]:
        name = f"{d.name} · {d.detail}" if level and d.detail else d.name
        if d.away:
            name += f" · {d.away}"
        return d.label, name, _backs(d), f"{d.taken} taken", _sweeps_text(d.sweeps)

    def render_data(self) -> Text:
        data = self.data
        if data is None or not data.seats:
            return Text()
        seats = data.seats
        n = len(seats)
        columns = 1 if self.size.height >= n else 2
        rows = -(-n // columns)
        gap = 3  # " │ " between two columns
        cell = (self.size.width - gap * (columns - 1)) // columns
        label_w = max(len(s.label) for s in seats)
        hand_w = max(max(s.hand_size for s in seats), 1)
        sweeps = any(s.sweeps is not None for s in seats)
        # the richest layout that fits: (with level, with taken, with sweeps)
        layouts = [(True, True, sweeps), (True, True, False), (False, True, False),
                   (False, False, False)]
        for level, taken, sw in layouts:
            parts = [self._row_parts(s, level) for s in seats]
            name_w = max(len(p[1]) for p in parts)
            taken_w = max(len(p[3]) for p in parts) if taken else 0
            sw_w = max(len(p[4]) for p in parts) if sw else 0
            need = 2 + label_w + 1 + name_w + 2 + hand_w
            need += (2 + taken_w if taken else 0) + (3 + sw_w if sw and sw_w else 0)
            if need <= cell:
                break
        else:
            name_w = max(4, cell - (2 + label_w + 1 + 2 + hand_w))
        lines: list[Text] = []
        for r in range(rows):
            line = Text()
            for c in range(columns):
                i = c * rows + r
                if i >= n:
                    break
                if c:
                    line.append(" │ ", style="dim")
                text = self._cell(seats[i], parts[i], label_w, name_w, hand_w,
                                  taken_w if taken else None, sw_w if sw else None, cell)
                if columns > 1 and c < columns - 1:
                    text.pad_right(cell - text.cell_len)
                line.append_text(text)
            lines.append(line)
        return self._joined(lines)

    @staticmethod
    def _cell(d: SeatData, parts: tuple[str, str, Text, str, str], label_w: int, name_w: int,
              hand_w: int, taken_w: int | None, sw_w: int | None, width: int) -> Text:
        label, name, backs, taken, sweeps = parts
        out = Text("▸ " if d.to_move else "  ", style="bold")
        out.append(label.ljust(label_w), style="bold reverse" if d.to_move else "bold")
        out.append(" ")
        if len(name) > name_w:
            name = name[:max(1, name_w - 1)] + "…"
        out.append(name.ljust(name_w), style="bold" if d.to_move else "")
        out.append("  ")
        out.append_text(backs if d.hand_size else Text.assemble(("–", "dim")))
        out.append(" " * (hand_w - max(1, d.hand_size) if d.hand_size else hand_w - 1))
        if taken_w is not None:
            out.append("  " + taken.rjust(taken_w))
        if sw_w:
            out.append(" · " if sweeps else "   ")
            out.append(sweeps.ljust(sw_w))
        out.truncate(width)
        return out


# ---------------------------------------------------------------------------- score


@dataclass(frozen=True)
class ScoreData:
    headers: tuple[str, ...]  # the sides' names (partners joined by +)
    labels: tuple[str, ...]  # the sides' short labels (S, NW, S+N), when the names do not fit
    game: tuple[int, ...]
    counts: tuple[SideCounts, ...]
    suit_label: str
    big_casino: Card
    little_casino: Card
    painter: CardPainter
    sweeps: bool = True  # the rules score sweeps (otherwise no Sweeps row)
    highlight: int | None = None  # the viewer's side


class ScorePanel(DataWidget[ScoreData]):
    """Game score per side and this round's running counts: a column per side, headed by
    the side's name, or by its short label when the names do not fit."""

    def render_data(self) -> Text:
        d = self.data
        if d is None:
            return Text()
        n = max(1, len(d.headers))
        width = self.size.width
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
        ]
        if d.sweeps:
            rows.append(("Sweeps", [str(c.sweeps) for c in d.counts]))
        label_w = min(8, max(len(label) for label, _ in rows) + 1)
        widest = max(len(v) for _, vals in rows for v in vals)
        col = max(widest + 1, 3, (width - label_w) // n)
        label_w = max(1, width - col * n)  # what the columns leave (the numbers end flush)
        headers = d.headers
        if any(len(h) > col - 1 for h in headers):
            headers = d.labels
        out = Text(" " * label_w)
        for i, h in enumerate(headers):
            style = "bold underline" if i == d.highlight else "bold"
            out.append(" " * max(1, col - len(h[:col - 1])))
            out.append(h[:col - 1], style=style)
        for r, (label, vals) in enumerate(rows):
            out.append("\n")
            out.append(label.ljust(label_w)[:label_w], style="bold" if r == 0 else "dim")
            for i, v in enumerate(vals):
                if r == 0 and i == d.highlight:
                    # the viewer's own score: underlined like its header (reverse video read
                    # as a stray cursor)
                    out.append(" " * (col - len(v)))
                    out.append(v, style="bold underline")
                else:
                    out.append(v.rjust(col), style="bold" if r == 0 else "")
        return out


# ---------------------------------------------------------------------------- status lines


@dataclass(frozen=True)
class LineData:
    text: str
    kind: str = "info"  # info, move, error, thinking, ok, warning
    right: str = ""


class StatusLine(DataWidget[LineData]):
    """One line of status: the previewed move, an error, or who is thinking."""

    PREFIX: ClassVar[dict[str, str]] = {
        "info": "  ", "move": "▸ ", "error": "✗ ", "thinking": "… ", "ok": "✓ ",
        "warning": "! "}
    STYLE: ClassVar[dict[str, str]] = {
        "info": "dim", "move": "bold", "error": "bold #ff5f5f", "thinking": "italic",
        "ok": "bold", "warning": "bold #ffaf00"}

    def render_data(self) -> Text:
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
    meanwhile), so a message is read in full at 80x24: Hard's longest hint reason takes four
    lines of the 54 columns beside the side panel. Also the move line itself (a long preview,
    or why a selection has no move), whose stylesheet allows it three."""

    MAX_LINES: ClassVar[int] = 5

    def _lines(self, width: int) -> list[Text]:
        """The message's lines at ``width`` (never changed once made)."""
        return self._for_width(width, self._make_lines)

    def _make_lines(self, width: int) -> list[Text]:
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
        if d.right:  # at the end of the last line ("Esc clears", "↑↓ 2/5"), or under it
            right = Text(d.right, style="dim")
            last = lines[-1]
            if last.cell_len + 1 + right.cell_len > width:
                last = Text()
                lines.append(last)
            last.append(" " * (width - last.cell_len - right.cell_len))
            last.append_text(right)
        if len(lines) > self.MAX_LINES:
            lines = lines[:self.MAX_LINES]
            last = lines[-1]
            last.truncate(max(0, width - 1))
            last.append("…", style=style)
        return lines

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return len(self._lines(width))

    def set_data(self, data: LineData) -> bool:
        return self.set_data_sized(data, lambda width: len(self._lines(width)))

    def render_data(self) -> Text:
        width = self.size.width
        lines = self._lines(width)
        if len(lines) == 1:
            return super().render_data()
        return self._joined(lines)


# The key a key bar's label stands for (its first word), when it is not the label itself.
KEY_NAMES: dict[str, str] = {
    "enter": "enter", "space": "space", "esc": "escape", "?": "question_mark",
    "←→": "right", "<>": "right", "↑↓": "down", "^v": "down", "home": "home", "end": "end",
    "tab": "tab", "/": "slash",
}


def key_of(label: str) -> str:
    """The key to press for a key bar's label: ``Enter`` is ``enter``, ``←→`` is ``right``
    (the next card), ``n Enter`` is ``n``."""
    first = label.split()[0] if label.split() else label
    return KEY_NAMES.get(first.lower(), first.lower() if len(first) == 1 else first)


class KeyBar(DataWidget[tuple[tuple[str, str], ...]]):
    """The main keys of the screen: ``key description`` pairs, as many as fit. Each is also a
    button: a click (or a tap) on it presses its key (for ``←→``, the right arrow)."""

    def _pieces(self) -> list[tuple[Text, str]]:
        d = self.data or ()
        width = self.size.width
        out: list[tuple[Text, str]] = []
        used = 0
        for key, desc in d:
            piece = Text()
            piece.append(f" {key} ", style="bold reverse")
            piece.append(f" {desc} ")
            if used + piece.cell_len > width:
                break
            used += piece.cell_len
            out.append((piece, key))
        return out

    def render_data(self) -> Text:
        out = Text()
        for piece, _key in self._pieces():
            out.append_text(piece)
        return out

    def key_at(self, x: int) -> str | None:
        """The key of the piece drawn at column ``x`` (None: none)."""
        start = 0
        for piece, key in self._pieces():
            if start <= x < start + piece.cell_len:
                return key_of(key)
            start += piece.cell_len
        return None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        key = None if offset is None else self.key_at(offset.x)
        if key is not None:
            event.stop()
            self.app.simulate_key(key)


# ---------------------------------------------------------------------------- move log


@dataclass(frozen=True)
class LogData:
    entries: tuple[tuple[str, bool], ...]  # (text, is_note), oldest first


class LogView(DataWidget[LogData]):
    """The latest moves in words, one line each (the newest at the bottom), so that entries
    never run into each other in a narrow panel; an entry wider than the panel ends in "…",
    and the whole log is read in full with ``l`` (screens/fulllog.py).

    Drawn from data (no scrolling widget), so a new line never needs a new layout. The mouse
    wheel scrolls it back (``back``: lines above the newest); a new entry shows the newest."""

    SCROLL_LINES: ClassVar[int] = 3  # lines a notch of the wheel moves

    def __init__(self, data: LogData | None = None, *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(data, id=id, classes=classes)
        self.back = 0
        self.hint = ""  # the border's subtitle while the newest lines are shown
        # each entry's line as last made, by (text, note, width): at a play one or two
        # entries are new and the others are made again as they were
        self._made: dict[tuple[str, bool, int], Text] = {}

    def set_data(self, data: LogData) -> bool:
        changed = super().set_data(data)
        if changed:
            self._show_back(0)
        return changed

    def _lines(self, enough: int | None = None) -> list[Text]:
        """The entries, one line each, oldest first: every one, or the newest ``enough``."""
        d = self.data
        if d is None:
            return []
        width = max(8, self.size.width)
        entries = d.entries if enough is None else d.entries[-enough:]
        lines: list[Text] = []
        made = self._made
        kept: dict[tuple[str, bool, int], Text] = {}
        for text, note in entries:
            key = (text, note, width)
            entry = made.get(key) or kept.get(key)
            if entry is None:
                entry = Text(text, style="dim italic" if note else "", no_wrap=True)
                entry.truncate(width, overflow="ellipsis")
            kept[key] = entry  # (never changed: joined into the drawing as a copy)
            lines.append(entry)
        if enough is not None:  # (the whole log, for the wheel, keeps only what is drawn)
            self._made = kept
        return lines

    def _show_back(self, back: int) -> None:
        top = max(0, len(self._lines()) - max(1, self.size.height)) if back else 0
        back = max(0, min(back, top))
        if back != self.back:
            self.back = back
            self.border_subtitle = f"{back} newer ↓" if back else self.hint
            self.refresh()

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self._show_back(self.back + self.SCROLL_LINES)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self._show_back(self.back - self.SCROLL_LINES)

    def render_data(self) -> Text:
        d = self.data
        if d is None or not d.entries:
            return Text()
        height = max(1, self.size.height)
        lines = self._lines(self.back + height)
        end = len(lines) - self.back
        return self._joined(lines[max(0, end - height):end])
