"""One person's side of a table at a hub: the :class:`SeatClient`.

A person's app never holds the game: only the latest :class:`~casino_tui.table.events.TableView`
of their own seat (a spectator's: no hidden card) and the events of the table filtered for them,
as the hub sends them. The client

- opens the table (:meth:`SeatClient.open`): a snapshot of the seat's view, the events before it
  that the log shows (at most :data:`HISTORY_EVENTS`) and a subscription to the events after it;
- takes the subscribed events in order (:meth:`SeatClient.next_update`): an event it already has
  is skipped; a gap in the numbering is filled by asking the hub for the events after the last
  one taken; after events that change the position (a move, a deal, a seat changing hands) it
  takes a fresh view, since no event holds the cards a new deal gives this seat (the view the
  server sent with the events when it has one after exactly those, else a snapshot asked
  for); a view of a new
  epoch (the table restored after a restart numbers its events anew) or a subscription that fell
  too far behind starts everything afresh (:attr:`TableUpdate.fresh`);
- sends the person's intents: a move for their own seat, a chat line, "next round", leaving.

Textual-free: the game screen of a hub's table (:mod:`casino_tui.app.netsession`) draws from it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from casino_tui.engine import Move, RoundSummary
from casino_tui.saves import Seat

from .codec import summary_from_json
from .config import DEFAULT_LEVEL
from .events import QUIET_KINDS, TableEvent, TableView
from .hub import HubError, Person, Subscription, TableHub

HISTORY_EVENTS = 60  # events before the snapshot that a newly opened table's log shows


@dataclass(frozen=True)
class TableChoice:
    """Where the lobby sends a person: a hub's table, and their seat there (None: watching)."""

    table_id: str
    seat: int | None = None


@dataclass(frozen=True)
class TableUpdate:
    """What changed at the table since the last update: the new ``events`` in order and the
    ``view`` after them. ``fresh``: the table is shown anew (the table was opened, or restored
    after a restart): ``events`` are the history to show instead of everything shown before."""

    events: tuple[TableEvent, ...]
    view: TableView
    fresh: bool = False


class SeatClient:
    """One person (``person``) at one table (``table_id``) of ``hub``: seated, or watching
    (``watch``). Call :meth:`open` first, then :meth:`next_update` in a loop."""

    def __init__(self, hub: TableHub, table_id: str, person: Person, *, watch: bool = False,
                 history: int = HISTORY_EVENTS) -> None:
        self.hub = hub
        self.table_id = table_id
        self.person = person
        self.watch = watch
        self.history = history
        self._view: TableView | None = None
        self.number = 0  # the last event taken
        self._sub: Subscription | None = None

    # ------------------------------------------------------------------ what it holds
    @property
    def view(self) -> TableView:
        """The latest view of the table for this person."""
        if self._view is None:
            raise HubError("the table is not open")
        return self._view

    @property
    def seat(self) -> int | None:
        """The person's seat (None: watching)."""
        return self.view.seat

    # ------------------------------------------------------------------ following the table
    async def open(self) -> TableUpdate:
        """The table now, and the events before it to show (``fresh``)."""
        if self.watch:
            await self.hub.spectate(self.table_id, self.person)
        return await self._fresh()

    async def reopen(self) -> TableUpdate:
        """The table shown afresh (after a connection to the hub broke)."""
        return await self._fresh()

    async def _fresh(self) -> TableUpdate:
        self.close()
        view = await self.hub.snapshot(self.table_id, self.person)
        start = max(0, view.number - self.history)
        history = [e for e in await self.hub.events_after(self.table_id, self.person, start)
                   if e.number <= view.number]
        self._sub = await self.hub.subscribe(self.table_id, self.person, view.number)
        self._view = view
        self.number = view.number
        return TableUpdate(tuple(history), view, fresh=True)

    async def next_update(self) -> TableUpdate:
        """Wait for the next events of the table; returns them with the view after them.
        Events delivered again (taken already, from the hub's answer to a gap) make no
        update of their own: it waits for the next ones."""
        while True:
            sub = self._sub
            if sub is None or self._view is None:
                raise HubError("the table is not open")
            if sub.lost:
                return await self._fresh()
            try:
                first = await sub.next()
            except HubError:
                if not sub.lost:
                    raise
                # lost while waiting: too far behind, or the table numbered its events anew
                # (another server of a shared store took it over): the table afresh
                return await self._fresh()
            batch = [first, *sub.ready()]
            if sub.lost:
                return await self._fresh()
            update = await self._take(batch)
            if update is not None:
                return update

    async def _take(self, batch: Iterable[TableEvent]) -> TableUpdate | None:
        """The update of ``batch``; None when it holds nothing new (every event taken before,
        and the table's view where it was)."""
        new: list[TableEvent] = []
        behind = self.view.number < self.number  # the last view was older than its events
        again = False  # an event numbered as one taken before
        for event in batch:
            if event.number <= self.number:
                again = True  # taken already (from the hub's answer to a gap), or numbered
                continue  # anew (a table restored after a restart: the view tells)
            if event.number != self.number + 1:  # a gap: ask for what is missing
                new.extend(await self._missing())
                continue
            new.append(event)
            self.number = event.number
        view = self.view
        if again or behind or any(e.kind not in QUIET_KINDS for e in new):
            pushed: TableView | None = getattr(self._sub, "view", None)
            if not again and not behind and pushed is not None \
                    and pushed.number == self.number and pushed.epoch == view.epoch:
                view = pushed  # it came with the events: no need to ask for it
            else:
                view = await self.hub.snapshot(self.table_id, self.person)
            if view.epoch != self.view.epoch:
                return await self._fresh()
            if view.number > self.number:  # the view is ahead: the events up to it
                new.extend(await self._missing(upto=view.number))
        else:
            view = replace(view, number=self.number)
        unchanged = not new and view == self._view
        self._view = view
        if unchanged:  # a delivery again of events taken before: nothing to show
            return None
        return TableUpdate(tuple(new), view)

    async def _missing(self, upto: int | None = None) -> list[TableEvent]:
        """The events after the last one taken, up to number ``upto`` (taking them)."""
        out = [e for e in await self.hub.events_after(self.table_id, self.person, self.number)
               if e.number > self.number and (upto is None or e.number <= upto)]
        if out:
            self.number = out[-1].number
        return out

    def close(self) -> None:
        """Stop following the table."""
        if self._sub is not None:
            self._sub.close()
            self._sub = None

    # ------------------------------------------------------------------ the person's intents
    async def submit(self, move: Move) -> list[TableEvent]:
        """Play ``move`` for the person's seat. Returns the events it caused, as the hub's
        answer names them (they also come with an update, which may be taken before or after
        this answer: compare their numbers with :attr:`number`). Raises
        :class:`~casino_tui.table.controller.MoveRefused` with the reason."""
        seat = self.seat
        if seat is None:
            raise HubError("you are watching: you have no seat at this table")
        return await self.hub.submit_move(self.table_id, self.person, seat, move)

    async def chat(self, text: str) -> None:
        """Say ``text`` to the table (raises :class:`HubError`: too long, too fast)."""
        await self.hub.chat(self.table_id, self.person, text)

    async def next_round(self) -> None:
        """The person has seen the round's summary (a spectator's is not waited for)."""
        if self.seat is not None:
            await self.hub.next_round(self.table_id, self.person)

    async def hand_to_computer(self, seat: int, level: str = DEFAULT_LEVEL) -> None:
        """The creator lets a computer play the seat of a person away for a while."""
        await self.hub.hand_to_computer(self.table_id, self.person, seat, level)

    async def give_back(self, seat: int) -> None:
        """The creator takes a seat back from its stand-in computer."""
        await self.hub.give_back(self.table_id, self.person, seat)

    async def new_game(self) -> None:
        """The creator deals a new game at the table, with the same seats."""
        await self.hub.new_game(self.table_id, self.person)

    async def game_events(self, upto: int | None = None) -> list[TableEvent]:
        """Every event of the game played up to event number ``upto`` (default: the game being
        played), from its first deal, filtered for the person: the history of a finished game
        (its rounds' summaries) for their records, even once a new game has begun."""
        events = [e for e in await self.hub.events_after(self.table_id, self.person, 0)
                  if upto is None or e.number <= upto]
        starts = [i for i, e in enumerate(events)
                  if e.kind == "note" and e.data.get("new_game") is not None]
        return events[starts[-1]:] if starts else events

    async def played_game(self, view: TableView) -> tuple[list[Seat], list[RoundSummary]]:
        """The game that ended at ``view`` as a player's statistics take it: its seats (people
        and computers, by number) and each round's summary, from the game's events (which
        hold no hidden card). ``HubError`` when the events cannot be had."""
        events = await self.game_events(upto=view.number)
        summaries = [summary_from_json(e.data["summary"]) for e in events
                     if e.kind == "round_over" and "summary" in e.data]
        seats = [Seat(f"Seat {i + 1}", "human") if s.human
                 else Seat(f"Seat {i + 1}", "computer", s.level or DEFAULT_LEVEL)
                 for i, s in enumerate(view.seats)]
        return seats, summaries

    async def leave(self) -> None:
        """Leave the table: the seat waits for its person (a spectator stops watching)."""
        self.close()
        await self.hub.leave(self.table_id, self.person)
