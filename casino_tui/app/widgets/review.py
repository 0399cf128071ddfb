"""The round review's own widget: every other hand of the moment, face up, one line each."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from casino_tui.engine import Card

from ..cardfmt import CardPainter
from .base import DataWidget


@dataclass(frozen=True)
class HandRow:
    name: str
    detail: str  # "person", or the computer's level
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class HandsData:
    rows: tuple[HandRow, ...]
    painter: CardPainter


class HandsList(DataWidget[HandsData]):
    """The hands of the players who are not making the play: name, level and cards."""

    def render_data(self) -> Text:
        d = self.data
        if d is None:
            return Text()
        width = max(10, self.size.width)
        name_w = min(14, max((len(r.name) for r in d.rows), default=0))
        detail_w = max((len(r.detail[:6]) for r in d.rows), default=0) + 2
        lines: list[Text] = []
        for row in d.rows:
            line = Text(" ")
            line.append(row.name[:name_w].ljust(name_w), style="bold")
            line.append(f"  {f'({row.detail[:6]})':<{detail_w}}  ", style="dim")
            if row.cards:
                line.append_text(d.painter.faces(row.cards))
            else:
                line.append("no cards", style="dim italic")
            line.truncate(width, overflow="ellipsis")
            lines.append(line)
        return self._joined(lines)
