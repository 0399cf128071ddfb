"""A game being played in the UI: the table's controller (the game itself: seats, turns, the
autosave; :mod:`casino_tui.table`) and what the screen shows of it: the move log, in the
player's card style, and the running counts of the score panel.

:class:`SessionBase` is what the game screen reads (names, sides, a seat's view, the log);
:class:`GameSession` holds the game in this process (solo and hot-seat games); a seat at a
hub's table is :class:`~casino_tui.app.netsession.NetSession`, which holds only that seat's view.

Pure Python (no Textual): the screens drive it, tests can use it directly (the kill test plays
and saves through it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from casino_tui.engine import (
    PRESET_DESCRIPTIONS,
    Build,
    Card,
    Move,
    MoveEvent,
    Pile,
    Rules,
    SeatView,
    State,
    resolve_preset_name,
)
from casino_tui.engine.cards import ACE, rank_of
from casino_tui.table import GameConfig, TableController, TableEvent, TableView
from casino_tui.table.controller import ComputerTurn

from .cardfmt import CardPainter
from .describe import move_log_line

# Short labels of the compass seat names (score columns, the five- and six-player table).
SEAT_LABELS: dict[str, str] = {
    "South": "S", "West": "W", "North": "N", "East": "E",
    "Southwest": "SW", "Northwest": "NW", "Northeast": "NE", "Southeast": "SE",
}


def seat_labels(names: Sequence[str]) -> list[str]:
    """A short label (one or two characters) for every seat, all different: S, SW, NW ... for
    the compass names; otherwise initials (``Ada Byron`` AB, ``Max`` M), the first two letters
    where initials clash (``Ann`` and ``Amy``: An, Am), and initial plus seat number (A2) if
    even those clash."""
    def initials(name: str) -> str:
        # Of the words that hold a letter or digit, their first such character: a display
        # name such as "[red]Bob" or "~zoë" is labelled B or Z, not "[" or "~".
        words = [w for w in name.split() if any(c.isalnum() for c in w)]
        return "".join(next(c for c in w if c.isalnum()) for w in words[:2]).upper()

    labels = [SEAT_LABELS.get(n) or initials(n) for n in names]
    steps: tuple[Callable[[int], str], ...] = (
        lambda i: names[i].strip()[:2].title(),
        lambda i: (names[i].strip()[:1].upper() or "P") + str(i + 1))
    for step in steps:
        clash = [i for i, lab in enumerate(labels) if not lab or labels.count(lab) > 1]
        if not clash:
            break
        for i in clash:
            if names[i] not in SEAT_LABELS:
                labels[i] = step(i)
    return labels


def preset_title(name: str) -> str:
    """A preset's display name: the text of its description before the colon."""
    key = resolve_preset_name(name)
    desc = PRESET_DESCRIPTIONS.get(key, key)
    head = desc.split(":", 1)[0]
    if "(" in head:
        head = head.split("(", 1)[0]
    return head.strip() or key


@dataclass
class LogEntry:
    text: str
    seat: int | None  # None: a note from the table (new deal, round over)
    round_no: int


@dataclass
class SideCounts:
    """A side's running counts in the current round (for the score panel)."""

    cards: int
    suit: int  # cards of the suit that scores "most" (spades in most presets)
    aces: int
    casinos: tuple[Card, ...]
    sweeps: int


class SessionBase:
    """What the game screen shows of a game, wherever the game is held: names, sides, the log
    in the player's card style and the score panel's running counts.

    Subclasses give the game's :attr:`names`, :attr:`rules`, :attr:`num_players`,
    :attr:`sides`, :attr:`round_no`, who plays each seat and :meth:`view_for` (a seat's view,
    which is all the screen draws from). :class:`GameSession` holds the game itself (solo and
    hot-seat games); :class:`~casino_tui.app.netsession.NetSession` holds one seat's view of a
    game at a hub's table."""

    log: list[LogEntry]
    summaries_shown: int  # round summaries already shown (the round number of the last one)
    _painter: CardPainter

    # ------------------------------------------------------------------ given by subclasses
    @property
    def names(self) -> list[str]:
        raise NotImplementedError

    @property
    def rules(self) -> Rules:
        raise NotImplementedError

    @property
    def num_players(self) -> int:
        raise NotImplementedError

    @property
    def sides(self) -> Sequence[Sequence[int]]:
        raise NotImplementedError

    @property
    def round_no(self) -> int:
        raise NotImplementedError

    def is_human(self, seat: int) -> bool:
        raise NotImplementedError

    @property
    def human_seats(self) -> list[int]:
        raise NotImplementedError

    def level(self, seat: int) -> str:
        raise NotImplementedError

    def view_for(self, seat: int) -> TableView:
        """The table as ``seat`` sees it (its own hand; of the others only their sizes)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ derived
    @property
    def hot_seat(self) -> bool:
        """Two or more people share the keyboard: hands are hidden between their turns."""
        return len(self.human_seats) >= 2

    @property
    def side_names(self) -> list[str]:
        return [" & ".join(self.names[s] for s in side) for side in self.sides]

    @property
    def side_labels(self) -> list[str]:
        """Short labels of the sides for narrow score columns: ``S``, ``NW``, ``S+N``."""
        labels = seat_labels(self.names)
        return ["+".join(labels[s] for s in side) for side in self.sides]

    def side_of(self, seat: int) -> int:
        """The side ``seat`` plays for."""
        return next(i for i, side in enumerate(self.sides) if seat in side)

    @property
    def sweeps_score(self) -> bool:
        """The rules score sweeps: only then are sweeps shown (log, seats, score panel)."""
        return self.rules.sweep_points > 0

    def partner_of(self, seat: int) -> int | None:
        side = self.sides[self.side_of(seat)]
        others = [s for s in side if s != seat]
        return others[0] if others else None

    def add_note(self, text: str) -> None:
        """A note in this screen's log only (not an event of the table)."""
        self.log.append(LogEntry(text, None, self.round_no))

    # ------------------------------------------------------------------ the log
    def _log_event(self, event: TableEvent, *, rebuilding: bool) -> None:
        names = self.names
        data: dict[str, Any] = dict(event.data)
        r = event.round_no
        if event.kind == "round_start":
            if rebuilding and self.log:  # live, the summary screen writes this line
                self.log.append(LogEntry(f"Round {r - 1} over", None, r - 1))
            self.log.append(LogEntry(f"Round {r}: {names[data['dealer']]} deals", None, r))
            grant = data.get("grant")
            if grant is not None:
                seat, cards = grant
                self.log.append(LogEntry(f"{names[seat]} took the {len(cards)} paired table "
                                         "cards", None, r))
        elif event.kind == "move" and event.move is not None:
            self.log.append(LogEntry(
                move_log_line(event.table_before, event.move, names, self.side_names,
                              self._painter, sweeps=self.sweeps_score), event.move.seat, r))
        elif event.kind == "deal":
            note = "New deal" + (": the last one" if data.get("last") else "")
            if data.get("changed"):
                note += f" ({data['deal_no']} of {data['deals']})"
            self.log.append(LogEntry(note, None, r))
        elif event.kind == "note":
            self.log.append(LogEntry(event.text, None, r))
        elif event.kind == "chat":
            self.log.append(LogEntry(f"{data.get('who', '?')}: {event.text}", None, r))

    # ------------------------------------------------------------------ counts
    def side_counts(self, view: SeatView | TableView) -> list[SideCounts]:
        rules = self.rules
        suit = 2 if rules.diamond_scoring else rules.majority_suit_index
        out = []
        for side in view.sides:
            cards = [c for s in side for c in view.captured[s]]
            out.append(SideCounts(
                cards=len(cards),
                suit=sum(1 for c in cards if c & 3 == suit),
                aces=sum(1 for c in cards if rank_of(c) == ACE),
                casinos=tuple(c for c in (rules.big_casino, rules.little_casino) if c in cards),
                sweeps=sum(view.sweeps[s] for s in side),
            ))
        return out

    @property
    def majority_suit(self) -> int:
        return 2 if self.rules.diamond_scoring else self.rules.majority_suit_index


class GameSession(SessionBase):
    """The table's controller of one game in the UI, and its log in the player's card style.

    Every change goes through :attr:`table` (a :class:`TableController`); the log follows its
    events (:meth:`sync`)."""

    def __init__(self, config: GameConfig, state: State | None = None, *,
                 resumed: bool = False, start_position: str | None = None) -> None:
        self.config = config
        self.table = TableController(config, state, resumed=resumed,
                                     start_position=start_position)
        self.log: list[LogEntry] = []
        self._synced = 0  # the table's events already in the log
        self._painter = CardPainter()
        self.summaries_shown = 0
        # the latest undo (the moves the game kept, the plays taken back): its log line
        self.undo_last: tuple[int, int] | None = None
        if resumed and state is not None:  # earlier rounds' summaries were seen before
            pending = state.is_round_over or state.is_game_over
            self.summaries_shown = max(0, len(state.round_summaries) - (1 if pending else 0))

    # ------------------------------------------------------------------ the table
    @property
    def state(self) -> State:
        return self.table.state

    @property
    def rules(self) -> Rules:
        return self.table.rules

    @property
    def seed(self) -> int | str:
        return self.table.seed

    @property
    def names(self) -> list[str]:
        return self.table.names

    @property
    def num_players(self) -> int:
        return self.table.num_players

    @property
    def sides(self) -> Sequence[Sequence[int]]:
        return self.state.sides

    @property
    def round_no(self) -> int:
        return self.state.round_no

    def is_human(self, seat: int) -> bool:
        return self.table.is_human(seat)

    @property
    def human_seats(self) -> list[int]:
        return self.table.human_seats

    def level(self, seat: int) -> str:
        return self.table.level(seat)

    def view_for(self, seat: int) -> TableView:
        return self.table.view_for(seat)

    # ------------------------------------------------------------------ playing
    def ai_seed(self) -> int:
        """A seed for the computer's next decision (see TableController.ai_seed)."""
        return self.table.ai_seed()

    def apply(self, move: Move, painter: CardPainter) -> tuple[MoveEvent, list[Pile]]:
        """Play ``move`` for the player to move (raises IllegalMoveError, changing nothing)."""
        seat = self.table.to_move
        events = self.table.play(-1 if seat is None else seat, move)
        return self._played(events, painter)

    def play(self, seat: int, move: Move, painter: CardPainter) -> tuple[MoveEvent, list[Pile]]:
        """Play a person's ``move`` for ``seat`` (raises MoveRefused, an IllegalMoveError, with
        the reason when it is not that seat's turn or the move is illegal)."""
        return self._played(self.table.play(seat, move), painter)

    def play_computer(self, turn: ComputerTurn, move: Move,
                      painter: CardPainter) -> tuple[MoveEvent, list[Pile]] | None:
        """Play a computer's ``move`` for ``turn`` (None: the game moved on meanwhile)."""
        events = self.table.play_computer(turn, move)
        if not events:
            self.sync(painter)
            return None
        return self._played(events, painter)

    def _played(self, events: list[TableEvent], painter: CardPainter) -> tuple[MoveEvent,
                                                                                list[Pile]]:
        self.sync(painter)
        ev = next(e for e in events if e.kind == "move")
        assert ev.move is not None
        return ev.move, list(ev.table_before)

    def next_round(self) -> None:
        self.table.next_round()
        self.sync()

    def round_start_notes(self) -> None:
        """The lines of the deal (who deals, a grant of paired cards) not yet in the log: a
        new game's first deal (later deals come with next_round)."""
        self.sync()

    # ------------------------------------------------------------------ the log
    def sync(self, painter: CardPainter | None = None) -> None:
        """Add the table's new events to the log (in ``painter``'s card style)."""
        if painter is not None:
            self._painter = painter
        events = self.table.events
        for event in events[self._synced:]:
            self._log_event(event, rebuilding=False)
        self._synced = len(events)

    def rebuild_log(self, painter: CardPainter, start_position: str | None = None) -> None:
        """The log of a resumed game, as it was when the game was saved: its moves replayed
        from the seed (or from ``start_position``), with the same lines and notes."""
        if start_position != self.table.start_position:
            self.table.rebuild_events(start_position)
        self._painter = painter
        self.log = []
        undo, moves = self.undo_last, 0
        for event in self.table.events:
            if event.kind == "move":
                if undo is not None and moves == undo[0]:  # the plays after it were undone
                    self.log.append(LogEntry(undo_note(undo[1]), None, event.round_no))
                    undo = None
                moves += 1
            self._log_event(event, rebuilding=True)
        if undo is not None and moves == undo[0]:
            self.log.append(LogEntry(undo_note(undo[1]), None, self.round_no))
        self._synced = len(self.table.events)


def undo_words(taken: int) -> str:
    """The plays one undo took back, in words ("your play and the 2 after it")."""
    return "your play" if taken == 1 else f"your play and the {taken - 1} after it"


def undo_note(taken: int) -> str:
    """The log's line for an undo (live, and where it was made in a resumed game's log)."""
    return f"Undo: took back {undo_words(taken)}"



def pile_index_of(table: Sequence[Pile], card: Card) -> int | None:
    """Index of the pile holding ``card`` (loose or in a build)."""
    for i, p in enumerate(table):
        if p == card or (isinstance(p, Build) and card in p.cards):
            return i
    return None
