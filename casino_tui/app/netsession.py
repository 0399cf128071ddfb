"""A seat at a hub's table, as the game screen shows it: the :class:`NetSession`.

The game is held by the hub (in the server process); this process holds only what its
:class:`~casino_tui.table.client.SeatClient` receives: the latest view of its seat (its own hand;
of the others and the stock only their sizes; a spectator's has no hand) and the table's events
filtered for it. The session turns them into what the game screen draws: names, sides, the log
in the player's card style (moves, deals, chat lines, people coming and going), and how long a
person has been away.

Everything a person typed (names, chat) is shown literally: never markup, and without control
or invisible characters (:func:`printable`), so no escape sequence reaches the terminal.

Pure Python (no Textual).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from casino_tui.engine import MoveEvent, Rules
from casino_tui.table import TableEvent, TableView
from casino_tui.table.client import SeatClient, TableUpdate

from .cardfmt import CardPainter
from .session import LogEntry, SessionBase

REPLACEMENT = "\N{REPLACEMENT CHARACTER}"
POSITION_KINDS = frozenset({"round_start", "move", "deal", "round_over", "game_over"})
SEAT_CHANGES = {
    "joined": "{name} sat down",
    "left": "{name} left the table",
    "away": "{name} is away",
    "back": "{name} is back",
    "computer": "A computer plays for {name}",
    "filled": "A computer ({level}) takes the open seat {name}",
    "returned": "{name} is back and plays again",
}


def printable(text: str) -> str:
    """``text`` safe to show: every control or invisible character (escape sequences, line
    breaks, bidirectional overrides) replaced by U+FFFD."""
    return "".join(c if c.isprintable() else REPLACEMENT for c in text)


def away_for(seconds: float) -> str:
    """How long someone has been away, in a few characters: ``30s``, ``2m``, ``1h 5m``."""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m"
    h, m = divmod(s // 60, 60)
    return f"{h}h {m}m" if m else f"{h}h"


class NetSession(SessionBase):
    """One person's game at a hub's table (their seat, or watching): the view and events its
    ``client`` receives. ``clock``: seconds on the hub's clock (how long someone has been
    away; tests give a fixed one)."""

    def __init__(self, client: SeatClient, *,
                 clock: Callable[[], float] = time.time) -> None:
        self.client = client
        self.clock = clock
        self.log: list[LogEntry] = []
        self.summaries_shown = 0
        self._painter = CardPainter()
        self.position = 0  # the number of the last event that changed the position
        self._opened = 0  # times the table was shown anew (its events may be numbered anew)

    # ------------------------------------------------------------------ the seat's view
    @property
    def view(self) -> TableView:
        return self.client.view

    @property
    def seat(self) -> int | None:
        """The person's seat (None: watching)."""
        return self.view.seat

    @property
    def names(self) -> list[str]:
        return [printable(s.name) for s in self.view.seats]

    @property
    def rules(self) -> Rules:
        return self.view.rules

    @property
    def num_players(self) -> int:
        return self.view.num_players

    @property
    def sides(self) -> Sequence[Sequence[int]]:
        return self.view.sides

    @property
    def round_no(self) -> int:
        return self.view.round_no

    def is_human(self, seat: int) -> bool:
        return self.view.seats[seat].human

    @property
    def human_seats(self) -> list[int]:
        """The people at this screen: the person's own seat (none when watching)."""
        seat = self.seat
        return [] if seat is None else [seat]

    def level(self, seat: int) -> str:
        return self.view.seats[seat].level or "computer"

    def view_for(self, seat: int) -> TableView:
        """The only view this process has: its own seat's (a spectator's)."""
        return self.view

    def away(self, seat: int) -> str:
        """``away 2m`` while the seat's person is away (``a computer plays for NAME (away
        2m)`` while a computer plays for them); nothing while they are here."""
        info = self.view.seats[seat]
        if info.away_since is None:
            return ""
        text = f"away {away_for(self.clock() - info.away_since)}"
        if info.stand_in:
            return f"a computer plays for {printable(info.name)} ({text})"
        return text

    def stand_in(self, seat: int) -> bool:
        """A computer plays the seat of its person, who is away."""
        return self.view.seats[seat].stand_in

    # ------------------------------------------------------------------ the log
    def take(self, update: TableUpdate,
             painter: CardPainter) -> list[tuple[MoveEvent, int, int]]:
        """Log the update's events (the whole log anew for a ``fresh`` one); returns its moves
        with the log lines each one wrote (``start``, ``end``), for the recent plays."""
        self._painter = painter
        if update.fresh:
            self.log = []
            summary = update.view.summary
            # the summary of a round over is shown (again); earlier ones were seen before
            self.summaries_shown = update.view.round_no - 1 if summary is None \
                else summary.round_no - 1
        moves: list[tuple[MoveEvent, int, int]] = []
        for event in update.events:
            start = len(self.log)
            self._log_event(event, rebuilding=update.fresh)
            if event.kind in POSITION_KINDS:
                self.position = event.number
            if event.kind == "note" and event.data.get("new_game") is not None \
                    and not update.fresh:
                self.summaries_shown = 0  # a new game at the table: its rounds are new
            if event.kind == "move" and event.move is not None:
                moves.append((event.move, start, len(self.log)))
            elif moves and event.kind in ("deal", "round_over", "game_over", "note"):
                move, first, _end = moves[-1]  # the notes a move caused go with it
                moves[-1] = (move, first, len(self.log))
        if update.fresh:
            self._opened += 1
            self.position = update.view.number
            return []
        return moves

    def position_key(self) -> int:
        """Changes with every move, deal and round (and whenever the table is shown anew)."""
        return self._opened * 10_000_000 + self.position

    def _log_event(self, event: TableEvent, *, rebuilding: bool) -> None:
        data: dict[str, Any] = dict(event.data)
        r = event.round_no
        if event.kind == "chat":
            who = printable(str(data.get("who", "?")))
            self.log.append(LogEntry(f"{who}: {printable(event.text)}", None, r))
        elif event.kind == "seat":
            line = SEAT_CHANGES.get(str(data.get("change")))
            if line is not None:
                name = printable(str(data.get("name", "?")))
                level = printable(str(data.get("level") or "computer"))
                self.log.append(LogEntry(line.format(name=name, level=level), None, r))
        elif event.kind == "note":
            self.log.append(LogEntry(printable(event.text), None, r))
        else:
            super()._log_event(event, rebuilding=rebuilding)
