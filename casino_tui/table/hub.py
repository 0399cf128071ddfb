"""Tables where people play each other: the :class:`TableHub` interface and :class:`LocalHub`,
the in-process hub a server runs.

A hub is the one authority of every table it holds: the game's state lives only in it (one
:class:`~casino_tui.table.controller.TableController` per table); the people at a table only
ever receive their own seat's filtered view and events, and send the moves of a seat they hold,
which the hub checks with the engine. Every method names the caller (a :class:`Person`: the
identity the server gave them, and their display name) and refuses what that person may not do
with a :class:`HubError` (a move: :class:`~casino_tui.table.controller.MoveRefused`), whose text
is for the player.

The interface is asynchronous and speaks only in plain values (:class:`TableInfo`, and the
JSON-able :class:`~casino_tui.table.events.TableView` and
:class:`~casino_tui.table.events.TableEvent`), so that a shared backend (several server hosts and
a common store) can replace :class:`LocalHub` behind it; see docs/ARCHITECTURE.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from casino_tui.engine import Move, Rules

from . import codes
from .codec import JSON
from .config import DEFAULT_LEVEL, GameConfig, SeatConfig
from .controller import MoveRefused, TableController, Thinker
from .events import SeatInfo, TableEvent, TableView

if TYPE_CHECKING:  # pragma: no cover
    from casino_tui.saves import LoadedGame, SaveStore, Seat

DAY = 24 * 3600.0
AWAY_GRACE = 60.0  # seconds a person is away before the creator may hand their seat to a computer
CHAT_MAX = 200  # characters of one chat line
CHAT_BURST = 5  # chat lines a person may send within CHAT_WINDOW seconds
CHAT_WINDOW = 10.0
QUEUE_MAX = 2000  # events waiting for one subscriber; more and it must take a fresh snapshot


class HubError(Exception):
    """Something the hub refuses: ``reason`` says why, in a player's words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class UnknownCode(HubError):
    """No open table has the code asked for (what guessing a code gets; the table channel
    counts these, :mod:`casino_tui.table.guard`)."""


@dataclass(frozen=True)
class Person:
    """Someone connected to the hub: ``id`` is their identity (the server's id of their key),
    ``name`` the display name they chose (shown literally)."""

    id: str
    name: str


@dataclass(frozen=True)
class SeatStatus:
    """A seat in a table's listing: ``kind`` is ``open`` (waiting for a person), ``person``
    or ``computer``; ``holder`` the person's display name; ``away_since`` (hub clock)."""

    name: str
    kind: str
    level: str | None = None
    holder: str | None = None
    away_since: float | None = None
    stand_in: bool = False

    def to_json(self) -> dict[str, JSON]:
        return {"name": self.name, "kind": self.kind, "level": self.level,
                "holder": self.holder, "away_since": self.away_since,
                "stand_in": self.stand_in}

    @classmethod
    def from_json(cls, value: object) -> SeatStatus:
        """Raises ValueError on anything but what :meth:`to_json` writes."""
        if not isinstance(value, Mapping):
            raise ValueError("a seat must be an object")
        name, kind, level = value.get("name"), value.get("kind"), value.get("level")
        holder, away = value.get("holder"), value.get("away_since")
        if not isinstance(name, str) or kind not in ("open", "person", "computer"):
            raise ValueError("a seat needs a name and a kind")
        if (level is not None and not isinstance(level, str)) or \
                (holder is not None and not isinstance(holder, str)):
            raise ValueError("a seat's level and holder must be text")
        if away is not None and (isinstance(away, bool) or not isinstance(away, int | float)):
            raise ValueError("a seat's away time must be a number")
        return cls(name, str(kind), level, holder, None if away is None else float(away),
                   bool(value.get("stand_in", False)))


def _opt_seat(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 6:
        raise ValueError("a seat must be a number from 0 to 5")
    return value


@dataclass(frozen=True)
class TableInfo:
    """A table as the list of tables shows it to one person: ``your_seat`` is their seat at it
    (None: they hold none), ``yours``: they created it."""

    table_id: str
    code: str
    public: bool
    creator: str  # the creator's display name
    rules: Rules
    num_players: int
    seats: tuple[SeatStatus, ...]
    started: bool
    finished: bool
    spectators: int
    round_no: int
    scores: tuple[int, ...]
    your_seat: int | None = None
    yours: bool = False

    @property
    def open_seats(self) -> int:
        return sum(1 for s in self.seats if s.kind == "open")

    def to_json(self) -> dict[str, JSON]:
        return {"table": self.table_id, "code": self.code, "public": self.public,
                "creator": self.creator, "rules": self.rules.to_dict(),
                "num_players": self.num_players, "seats": [s.to_json() for s in self.seats],
                "started": self.started, "finished": self.finished,
                "spectators": self.spectators, "round": self.round_no,
                "scores": list(self.scores), "your_seat": self.your_seat, "yours": self.yours}

    @classmethod
    def from_json(cls, value: object) -> TableInfo:
        """Raises ValueError on anything but what :meth:`to_json` writes."""
        if not isinstance(value, Mapping):
            raise ValueError("a table must be an object")
        v: Mapping[str, Any] = value
        try:
            texts = (v["table"], v["code"], v["creator"])
            numbers = (v["num_players"], v["spectators"], v["round"], *v["scores"])
            if not all(isinstance(t, str) for t in texts) or not all(
                    isinstance(n, int) and not isinstance(n, bool) for n in numbers):
                raise ValueError("a table's fields have the wrong types")
            return cls(str(v["table"]), str(v["code"]), bool(v["public"]), str(v["creator"]),
                       Rules.from_dict(dict(v["rules"])), int(v["num_players"]),
                       tuple(SeatStatus.from_json(s) for s in v["seats"]),
                       bool(v["started"]), bool(v["finished"]), int(v["spectators"]),
                       int(v["round"]), tuple(int(n) for n in v["scores"]),
                       _opt_seat(v.get("your_seat")), bool(v.get("yours", False)))
        except (KeyError, TypeError) as e:
            raise ValueError(f"a table is missing or has a damaged field ({e})") from None
        except ValueError:
            raise
        except Exception as e:  # RulesError and the like
            raise ValueError(str(e)) from None


class Subscription(Protocol):
    """Events of one table for one person, filtered for them, in order and without gaps.
    ``lost``: too many events waited unread; take a fresh snapshot and subscribe again.
    A subscription may also have ``view``: the person's view of the table that came with the
    latest events (a hub over a connection sends it, saving a call for a snapshot; None or
    no such attribute: ask for a snapshot)."""

    lost: bool

    async def next(self) -> TableEvent:
        """The next event (waits for it)."""
        ...

    def ready(self) -> list[TableEvent]:
        """The events waiting now (no wait)."""
        ...

    def close(self) -> None:
        ...


class TableHub(Protocol):
    """What the server's sessions ask of the tables. Every change is checked against the
    caller; refusals raise :class:`HubError` (moves: :class:`MoveRefused`)."""

    async def create_table(self, config: GameConfig, creator: Person, *,
                           public: bool = True) -> TableInfo:
        """A new table: ``config``'s human seats are open for people (the creator takes the
        first), its computer seats play at their levels. Not started until :meth:`start`."""
        ...

    async def list_tables(self, person: Person) -> list[TableInfo]:
        """The public tables that are not finished, and every table ``person`` sits at."""
        ...

    async def find(self, code: str) -> TableInfo:
        """The table with this join code (any table, public or not)."""
        ...

    async def join(self, code: str, person: Person) -> TableInfo:
        """Come to the table with this code (private ones too): watching it until taking a
        seat; someone who has a seat there is back at it."""
        ...

    async def take_seat(self, table_id: str, person: Person, seat: int | None = None) -> int:
        """Sit ``person`` at an open seat (``seat``, or the first open one); a person who holds
        a seat there already gets it back. Returns the seat."""
        ...

    async def start(self, table_id: str, person: Person) -> None:
        """The creator starts the game; the seats still open are played by computers."""
        ...

    async def leave(self, table_id: str, person: Person) -> None:
        """``person`` goes: a seat in a started game is kept (they are away); before the start
        the seat opens again; a spectator stops watching."""
        ...

    async def mark_away(self, table_id: str, person: Person) -> None:
        """``person``'s connection dropped: their seat waits for them."""
        ...

    async def come_back(self, table_id: str, person: Person) -> int:
        """``person`` is back at their seat (taking it back from a computer). Returns it."""
        ...

    async def hand_to_computer(self, table_id: str, person: Person, seat: int,
                               level: str = DEFAULT_LEVEL) -> None:
        """The creator lets a computer play the seat of a person away for a while."""
        ...

    async def give_back(self, table_id: str, person: Person, seat: int) -> None:
        """The creator takes a seat back from its stand-in computer: it waits for its person
        again (who also takes it back by coming back)."""
        ...

    async def new_game(self, table_id: str, person: Person) -> None:
        """The creator deals a new game at the table once its game is over: the same seats,
        people and computers (a computer standing in for someone away goes on doing so)."""
        ...

    async def spectate(self, table_id: str, person: Person) -> TableView:
        """Watch a public table (or one joined by its code): a view with no hidden card."""
        ...

    async def chat(self, table_id: str, person: Person, text: str) -> TableEvent:
        """A line of chat from someone at the table (length- and rate-limited, kept as
        typed)."""
        ...

    async def submit_move(self, table_id: str, person: Person, seat: int,
                          move: Move) -> list[TableEvent]:
        """Play ``move`` for ``seat``, which ``person`` must hold. Raises MoveRefused."""
        ...

    async def next_round(self, table_id: str, person: Person) -> None:
        """``person`` has seen the round's summary; the next round is dealt when every
        person present has."""
        ...

    async def snapshot(self, table_id: str, person: Person) -> TableView:
        """The table now, as ``person`` may see it (their seat's view, or a spectator's)."""
        ...

    async def events_after(self, table_id: str, person: Person,
                           number: int) -> list[TableEvent]:
        """The events after ``number``, filtered for ``person``."""
        ...

    async def subscribe(self, table_id: str, person: Person, after: int) -> Subscription:
        """The events after ``after`` and every later one, filtered for ``person``."""
        ...


# ---------------------------------------------------------------------------- LocalHub
class EventFeed:
    """A subscription fed from elsewhere (the server's pushed frames, the store's event rows):
    the events in order after ``after``, each at most once. A gap, or more than
    :data:`QUEUE_MAX` events unread, loses it (:meth:`stop`): :meth:`next` raises
    :class:`HubError` once no event waits (take a fresh snapshot and subscribe again).
    ``view``: the seat's view that came with the latest events, if any. A subclass releases
    what feeds it in :meth:`_release` (called once, by :meth:`close`)."""

    def __init__(self, after: int) -> None:
        self.last = after
        self.lost = False
        self.closed = False
        self.reason = ""
        self.view: TableView | None = None
        self._queue: asyncio.Queue[TableEvent | None] = asyncio.Queue()

    def deliver(self, event: TableEvent, view: TableView | None = None) -> None:
        if self.closed or self.lost or event.number <= self.last:
            return  # a repeat (a subscription again after a drop) is dropped
        if event.number != self.last + 1 or self._queue.qsize() >= QUEUE_MAX:
            self.stop("events were missed: take a fresh snapshot and subscribe again")
            return
        self.last = event.number
        if view is not None:
            self.view = view
        self._queue.put_nowait(event)

    def stop(self, reason: str) -> None:
        """Lost: wake a reader waiting in :meth:`next`."""
        if not self.lost:
            self.lost = True
            self.reason = reason
            self._queue.put_nowait(None)

    async def next(self) -> TableEvent:
        event = await self._queue.get()
        if event is None:
            self._queue.put_nowait(None)  # every later call says so too
            raise HubError(self.reason or "the subscription was lost")
        return event

    def ready(self) -> list[TableEvent]:
        out: list[TableEvent] = []
        while not self._queue.empty():
            event = self._queue.get_nowait()
            if event is None:
                self._queue.put_nowait(None)
                break
            out.append(event)
        return out

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._release()

    def _release(self) -> None:
        raise NotImplementedError


class _Queue:
    """A :class:`Subscription` of :class:`LocalHub`."""

    def __init__(self, hub: LocalHub, table: _Table, person: Person) -> None:
        self._hub = hub
        self._table = table
        self.person = person
        self._queue: asyncio.Queue[TableEvent] = asyncio.Queue()
        self.lost = False
        self.closed = False
        self.view: TableView | None = None  # in process, a snapshot costs nothing

    def push(self, event: TableEvent) -> None:
        if self.closed or self.lost:
            return
        if self._queue.qsize() >= QUEUE_MAX:
            self.lost = True
            return
        self._queue.put_nowait(event.for_seat(self._table.seat_of(self.person.id)))

    async def next(self) -> TableEvent:
        return await self._queue.get()

    def ready(self) -> list[TableEvent]:
        out = []
        while not self._queue.empty():
            out.append(self._queue.get_nowait())
        return out

    def close(self) -> None:
        self.closed = True
        with contextlib.suppress(ValueError):
            self._table.subscribers.remove(self)


@dataclass
class _Table:
    table_id: str
    code: str
    public: bool
    creator: Person
    controller: TableController
    holders: list[str | None]  # per seat: the identity of the person holding it
    started: bool = False
    closed: bool = False
    spectators: dict[str, Person] = field(default_factory=dict)
    subscribers: list[_Queue] = field(default_factory=list)
    empty_since: float | None = None  # no person present since (hub clock)
    ready: set[str] = field(default_factory=set)  # who has seen the round's summary
    chat_times: dict[str, list[float]] = field(default_factory=dict)
    driving: asyncio.Task[None] | None = None

    def seat_of(self, person_id: str) -> int | None:
        for seat, holder in enumerate(self.holders):
            if holder == person_id:
                return seat
        return None

    def present(self) -> list[str]:
        """Identities of the seated people who are here (not away)."""
        seats = self.controller.seats
        return [h for i, h in enumerate(self.holders)
                if h is not None and seats[i].away_since is None]

    def record(self) -> dict[str, Any]:
        """``extra.table`` of the save (see docs/SAVE_FORMAT.md)."""
        seats = self.controller.seats
        return {
            "id": self.table_id, "code": self.code, "public": self.public,
            "creator": {"id": self.creator.id, "name": self.creator.name},
            "started": self.started, "closed": self.closed,
            "stand_in": {str(i): s.level for i, s in enumerate(seats) if s.stand_in},
            "away_since": {str(i): s.away_since for i, s in enumerate(seats)
                           if s.away_since is not None},
            "empty_since": self.empty_since,
        }


class LocalHub:
    """Every table of one server, in its process: the :class:`TableHub` the server runs.

    ``store``: where tables are saved (a SaveStore of their own folder; None: not saved);
    ``thinker``: the computers' moves (a worker process shared by all tables);
    ``save_in_background``: each table's file is written and synced in a thread of its own
    (:class:`~casino_tui.table.controller.BackgroundSaver`), so that a move's events go out
    without waiting for the disk and the event loop serving everyone is never held up by it
    (:meth:`shutdown` and closing a table wait for the last save);
    ``new_code``: where join codes come from (default: :func:`casino_tui.table.codes.new_code`,
    three syllables such as ``KAMIRO``, six for a private table; a given source's codes are
    used as they are; codes are kept as :func:`~casino_tui.table.codes.normalize_code` reads
    them, and a typed code is found in any case, with spaces or dashes); ``clock``: seconds
    (tests move time on). Call :meth:`restore` once at start, :meth:`close_idle` now and
    then, :meth:`shutdown` at the end.
    """

    def __init__(self, thinker: Thinker, store: SaveStore | None = None, *,
                 new_code: Callable[[], str] | None = None,
                 clock: Callable[[], float] = time.time, away_grace: float = AWAY_GRACE,
                 keep_empty: float = DAY, save_in_background: bool = False) -> None:
        self.thinker = thinker
        self.store = store
        self.save_in_background = save_in_background
        self._new_code = new_code
        self._clock = clock
        self.away_grace = away_grace
        self.keep_empty = keep_empty
        self._tables: dict[str, _Table] = {}

    # ------------------------------------------------------------------ tables
    def _get(self, table_id: str) -> _Table:
        table = self._tables.get(table_id)
        if table is None or table.closed:
            raise HubError("there is no such table (it may have closed)")
        return table

    def _code(self, private: bool = False) -> str:
        """A new table's join code; a private table's is long (it is all it takes to reach
        the table: :mod:`casino_tui.table.codes`)."""
        taken = {t.code for t in self._tables.values()}
        if self._new_code is None:
            try:
                return codes.new_code(taken, private=private)
            except RuntimeError:  # pragma: no cover - with 274,625 codes
                raise HubError("no free join code: try again") from None
        for _ in range(1000):  # a given source's codes are taken as they are
            code = codes.parse_code(self._new_code())
            if code not in taken:
                return code
        raise HubError("no free join code: try again")  # pragma: no cover

    async def create_table(self, config: GameConfig, creator: Person, *,
                           public: bool = True) -> TableInfo:
        if not any(s.human for s in config.seats[:config.players]):
            raise HubError("a table needs at least one seat for a person")
        try:
            controller = TableController(config)
        except Exception as e:  # a preset and player count that do not go together
            raise HubError(str(e)) from None
        table = _Table(secrets.token_hex(6), self._code(not public), public, creator, controller,
                       [None] * controller.num_players)
        self._tables[table.table_id] = table
        self._watch(table)
        first = next(i for i, s in enumerate(controller.seats) if s.human)
        self._sit(table, creator, first)
        if self.store is not None:
            controller.store = self.store
            controller.slot = self.store.new_game(self._save_seats(table))
            if self.save_in_background:
                controller.save_in_background()
        self._save(table)
        return self._info(table, creator)

    def _watch(self, table: _Table) -> None:
        def deliver(event: TableEvent) -> None:
            for sub in list(table.subscribers):
                sub.push(event)

        table.controller.listeners.append(deliver)

    async def list_tables(self, person: Person) -> list[TableInfo]:
        return [self._info(t, person) for t in self._tables.values() if not t.closed and (
            (t.public and not t.controller.game_over) or t.seat_of(person.id) is not None)]

    async def find(self, code: str) -> TableInfo:
        try:
            wanted = codes.parse_code(code)
        except ValueError as err:
            raise HubError(str(err)) from None
        for t in self._tables.values():
            if not t.closed and t.code == wanted:
                return self._info(t)
        raise UnknownCode("no table has this code: check it, or ask for it again")

    def table_ids(self) -> list[str]:
        return [t.table_id for t in self._tables.values() if not t.closed]

    def census(self) -> dict[str, int]:
        """How many tables are open (waiting for players), in play (started, the game not
        over) and finished (the game over, the table not yet closed), for the server's
        operator."""
        out = {"open": 0, "in_play": 0, "finished": 0}
        for t in self._tables.values():
            if not t.closed:
                state = ("finished" if t.controller.game_over else "in_play" if t.started
                         else "open")
                out[state] += 1
        return out

    def controller(self, table_id: str) -> TableController:
        """The table's controller (the server's own use and tests; never a person's)."""
        return self._get(table_id).controller

    def info(self, table_id: str) -> TableInfo:
        """The table as a listing shows it to someone who holds no seat at it."""
        return self._info(self._get(table_id))

    def holders(self, table_id: str) -> tuple[str | None, ...]:
        """Per seat, the identity of the person who holds it (None: open, or a computer's)."""
        return tuple(self._get(table_id).holders)

    def recode(self, table_id: str) -> str:
        """Give the table another join code (its code is taken elsewhere: a shared
        directory of several hosts' tables); returns it."""
        table = self._get(table_id)
        old = table.code
        while (code := self._code(not table.public)) == old:  # pragma: no cover - 1 in 274,625
            pass
        table.code = code
        self._save_record(table)
        return code

    def drop(self, table_id: str) -> None:
        """Stop running the table at once, writing nothing (another host runs it now): its
        computers stop, its subscriptions end, its save slot is released unwritten."""
        table = self._tables.pop(table_id, None)
        if table is None:
            return
        table.closed = True
        if table.driving is not None:
            table.driving.cancel()
        ctl = table.controller
        ctl.listeners.clear()
        if ctl.slot is not None and ctl.store is not None:
            ctl.store.close(ctl.slot)
        for sub in list(table.subscribers):
            sub.close()

    # ------------------------------------------------------------------ seats
    async def take_seat(self, table_id: str, person: Person, seat: int | None = None) -> int:
        table = self._get(table_id)
        mine = table.seat_of(person.id)
        if mine is not None:
            if seat is not None and seat != mine:
                raise HubError("you already have a seat at this table")
            await self.come_back(table_id, person)
            return mine
        if table.started:
            raise HubError("this game has started: you can watch it")
        seats = table.controller.seats
        free = [i for i, s in enumerate(seats) if s.human and table.holders[i] is None]
        if seat is None:
            if not free:
                raise HubError("every seat at this table is taken")
            seat = free[0]
        if seat not in free:
            raise HubError("that seat is not open")
        table.spectators.pop(person.id, None)
        self._sit(table, person, seat)
        self._save(table)
        return seat

    def _sit(self, table: _Table, person: Person, seat: int) -> None:
        ctl = table.controller
        table.holders[seat] = person.id
        ctl.creator_seat = table.seat_of(table.creator.id)
        taken = {s.name.casefold() for i, s in enumerate(ctl.seats)
                 if i != seat and (table.holders[i] is not None or not s.human)}
        name = person.name
        n = 2
        while name.casefold() in taken:  # unique at the table
            name = f"{person.name} {n}"
            n += 1
        ctl.set_seat(seat, replace(ctl.seats[seat], name=name, away_since=None))
        table.empty_since = None
        ctl.add_event("seat", seat=seat, data={"change": "joined", "name": name})

    async def start(self, table_id: str, person: Person) -> None:
        table = self._get(table_id)
        if person.id != table.creator.id:
            raise HubError("only the table's creator can start the game")
        if table.started:
            raise HubError("the game has started already")
        ctl = table.controller
        for i, s in enumerate(ctl.seats):
            if s.human and table.holders[i] is None:  # an open seat: a computer plays it
                level = ctl.config.seats[i].level or DEFAULT_LEVEL
                ctl.set_seat(i, SeatInfo(s.name, False, level))
                ctl.add_event("seat", seat=i, data={"change": "filled", "name": s.name,
                                                    "level": level})
        table.started = True
        ctl.add_note("The game begins")
        self._save(table)
        self._drive(table)

    async def leave(self, table_id: str, person: Person) -> None:
        table = self._get(table_id)
        if table.spectators.pop(person.id, None) is not None:
            self._update_empty(table)
            return
        seat = table.seat_of(person.id)
        if seat is None:
            return
        if table.started:
            await self.mark_away(table_id, person)
            return
        ctl = table.controller
        table.holders[seat] = None
        ctl.creator_seat = table.seat_of(table.creator.id)
        ctl.set_seat(seat, replace(ctl.seats[seat], name=ctl.config.seats[seat].name))
        ctl.add_event("seat", seat=seat, data={"change": "left", "name": person.name})
        self._update_empty(table)
        self._save(table)

    async def mark_away(self, table_id: str, person: Person) -> None:
        table = self._get(table_id)
        seat = table.seat_of(person.id)
        if seat is None:
            table.spectators.pop(person.id, None)
            self._update_empty(table)
            return
        ctl = table.controller
        if ctl.seats[seat].away_since is None:
            ctl.set_seat(seat, replace(ctl.seats[seat], away_since=self._clock()))
            ctl.add_event("seat", seat=seat, data={"change": "away",
                                                  "name": ctl.seats[seat].name})
        table.ready.discard(person.id)
        self._update_empty(table)
        self._save(table)
        self._maybe_next_round(table)

    async def come_back(self, table_id: str, person: Person) -> int:
        table = self._get(table_id)
        seat = table.seat_of(person.id)
        if seat is None:
            raise HubError("you have no seat at this table")
        ctl = table.controller
        info = ctl.seats[seat]
        if info.away_since is not None or info.stand_in:
            ctl.set_seat(seat, replace(info, away_since=None, stand_in=False, level=None))
            ctl.add_event("seat", seat=seat, data={
                "change": "returned" if info.stand_in else "back", "name": info.name})
            table.empty_since = None
            self._save(table)
        return seat

    async def hand_to_computer(self, table_id: str, person: Person, seat: int,
                               level: str = DEFAULT_LEVEL) -> None:
        table = self._get(table_id)
        if person.id != table.creator.id:
            raise HubError("only the table's creator can hand a seat to a computer")
        ctl = table.controller
        if not 0 <= seat < ctl.num_players or table.holders[seat] is None:
            raise HubError("that seat is not a person's")
        info = ctl.seats[seat]
        if info.stand_in:
            return
        if info.away_since is None:
            raise HubError(f"{info.name} is here: only an away player's seat can be handed "
                           "to a computer")
        waited = self._clock() - info.away_since
        if waited < self.away_grace:
            raise HubError(f"{info.name} has been away for {int(waited)} s: wait "
                           f"{int(self.away_grace - waited) + 1} s more")
        ctl.stand_in(seat, level)
        ctl.set_seat(seat, replace(ctl.seats[seat], away_since=info.away_since))
        ctl.add_event("seat", seat=seat, data={"change": "computer", "name": info.name})
        self._save(table)
        self._drive(table)

    async def give_back(self, table_id: str, person: Person, seat: int) -> None:
        table = self._get(table_id)
        if person.id != table.creator.id:
            raise HubError("only the table's creator can take a seat back from a computer")
        ctl = table.controller
        if not 0 <= seat < ctl.num_players or not ctl.seats[seat].stand_in:
            raise HubError("no computer stands in at that seat")
        info = ctl.seats[seat]
        ctl.stand_in(seat, None)
        ctl.set_seat(seat, replace(ctl.seats[seat], away_since=info.away_since))
        ctl.add_event("seat", seat=seat, data={"change": "away", "name": info.name})
        self._save(table)

    async def new_game(self, table_id: str, person: Person) -> None:
        table = self._get(table_id)
        if person.id != table.creator.id:
            raise HubError("only the table's creator can start a new game")
        ctl = table.controller
        if not table.started or not ctl.game_over:
            raise HubError("the game at this table is not over yet")
        if self.store is not None and ctl.slot is not None:
            # the finished game keeps its file, closed (never restored); the new one has its own
            self._refresh_record(table)
            ctl.slot.table = {**table.record(), "closed": True}
            ctl.save_now()
            ctl.close()
            ctl.slot = self.store.new_game(self._save_seats(table))
            self._refresh_record(table)
        table.ready.clear()
        ctl.new_game()  # saved by the controller
        self._save(table)
        self._drive(table)

    async def spectate(self, table_id: str, person: Person) -> TableView:
        table = self._get(table_id)
        if table.seat_of(person.id) is None:
            if not table.public and person.id not in table.spectators:
                raise HubError("this table is private: join it with its code")
            table.spectators[person.id] = person
            table.empty_since = None
        return self._view(table, None)

    async def join(self, code: str, person: Person) -> TableInfo:
        """Come to the table with this code (private ones too): watching it until taking a
        seat (:meth:`take_seat`); someone with a seat there is back at it."""
        info = await self.find(code)
        table = self._get(info.table_id)
        if table.seat_of(person.id) is not None:
            await self.come_back(table.table_id, person)
        else:
            table.spectators[person.id] = person
            table.empty_since = None
        return self._info(table, person)

    # ------------------------------------------------------------------ talking and playing
    async def chat(self, table_id: str, person: Person, text: str) -> TableEvent:
        table = self._get(table_id)
        seat = table.seat_of(person.id)
        if seat is None and person.id not in table.spectators:
            raise HubError("you are not at this table")
        if not text.strip():
            raise HubError("say something first")
        if len(text) > CHAT_MAX:
            raise HubError(f"a chat line has at most {CHAT_MAX} characters")
        now = self._clock()
        times = [t for t in table.chat_times.get(person.id, []) if now - t < CHAT_WINDOW]
        if len(times) >= CHAT_BURST:
            raise HubError("you are chatting too fast: wait a few seconds")
        table.chat_times[person.id] = [*times, now]
        who = table.controller.seats[seat].name if seat is not None else person.name
        return table.controller.add_event("chat", seat=seat, text=text, data={"who": who})

    async def submit_move(self, table_id: str, person: Person, seat: int,
                          move: Move) -> list[TableEvent]:
        table = self._get(table_id)
        if table.seat_of(person.id) != seat:
            raise MoveRefused("that is not your seat")
        if not table.started:
            raise MoveRefused("the game has not started yet")
        ctl = table.controller
        if ctl.seats[seat].stand_in:
            raise MoveRefused("a computer plays your seat: come back to the table first")
        self._refresh_record(table)
        events = ctl.play(seat, move)  # saved by the controller
        self._drive(table)
        return [e.for_seat(seat) for e in events]

    async def next_round(self, table_id: str, person: Person) -> None:
        table = self._get(table_id)
        if table.seat_of(person.id) is None:
            raise HubError("you have no seat at this table")
        if not table.controller.round_over:
            return
        table.ready.add(person.id)
        self._maybe_next_round(table)

    def _maybe_next_round(self, table: _Table) -> None:
        ctl = table.controller
        if not table.started or not ctl.round_over:
            return
        if all(p in table.ready for p in table.present()):
            table.ready.clear()
            self._refresh_record(table)
            ctl.next_round()  # saved by the controller
            self._drive(table)

    def _drive(self, table: _Table) -> None:
        """Let the computers play while it is their turn (in a task of the event loop)."""
        if table.driving is not None and not table.driving.done():
            return
        ctl = table.controller
        if not table.started or ctl.computer_turn() is None:
            self._maybe_next_round(table)
            return
        table.driving = asyncio.get_running_loop().create_task(self._computers(table))

    async def _computers(self, table: _Table) -> None:
        ctl = table.controller
        while not table.closed and (turn := ctl.computer_turn()) is not None:
            move = await ctl.think(turn, self.thinker)
            if table.closed:
                return
            self._refresh_record(table)
            ctl.play_computer(turn, move)  # saved by the controller
        if ctl.round_over:
            self._maybe_next_round(table)
            if ctl.computer_turn() is not None:  # the next round began with a computer
                await self._computers(table)

    async def idle(self, table_id: str) -> None:
        """Wait until the table's computers have nothing more to play (tests, shutdown)."""
        table = self._get(table_id)
        while table.driving is not None and not table.driving.done():
            await asyncio.shield(table.driving)

    # ------------------------------------------------------------------ what people see
    def _seat_for(self, table: _Table, person: Person) -> int | None:
        seat = table.seat_of(person.id)
        if seat is None and not table.public and person.id not in table.spectators:
            raise HubError("this table is private: join it with its code")
        return seat

    async def snapshot(self, table_id: str, person: Person) -> TableView:
        table = self._get(table_id)
        return self._view(table, self._seat_for(table, person))

    def _view(self, table: _Table, seat: int | None) -> TableView:
        """The table as ``seat`` sees it (None: a spectator)."""
        return table.controller.view_for(seat)

    async def events_after(self, table_id: str, person: Person,
                           number: int) -> list[TableEvent]:
        table = self._get(table_id)
        return table.controller.events_after(number, self._seat_for(table, person))

    async def subscribe(self, table_id: str, person: Person, after: int) -> Subscription:
        table = self._get(table_id)
        self._seat_for(table, person)
        sub = _Queue(self, table, person)
        for event in table.controller.events[max(0, after):]:
            sub.push(event)
        table.subscribers.append(sub)
        return sub

    def _info(self, table: _Table, person: Person | None = None) -> TableInfo:
        """``table`` as ``person`` sees it in a listing (their seat, whether it is theirs)."""
        ctl = table.controller
        seats = []
        for i, s in enumerate(ctl.seats):
            holder = table.holders[i]
            kind = "computer" if not s.human else "person" if holder is not None else "open"
            seats.append(SeatStatus(s.name, kind, s.level if s.computer_plays else None,
                                    s.name if holder is not None else None, s.away_since,
                                    s.stand_in))
        st = ctl.state
        return TableInfo(table.table_id, table.code, table.public, table.creator.name,
                         ctl.rules, ctl.num_players, tuple(seats), table.started,
                         st.is_game_over, len(table.spectators), st.round_no,
                         tuple(st.scores),
                         None if person is None else table.seat_of(person.id),
                         person is not None and person.id == table.creator.id)

    # ------------------------------------------------------------------ saving and closing
    def _save_seats(self, table: _Table) -> list[Seat]:
        from casino_tui.saves import Seat

        out = []
        for i, s in enumerate(table.controller.seats):
            if s.human:
                out.append(Seat(s.name, "human", player=table.holders[i]))
            else:
                out.append(Seat(s.name, "computer", s.level or DEFAULT_LEVEL))
        return out

    def _save(self, table: _Table) -> None:
        """Save the table now (its seats may have changed hands)."""
        slot = table.controller.slot
        if slot is not None:
            slot.seats = tuple(self._save_seats(table))
        self._save_record(table)

    def _save_record(self, table: _Table) -> None:
        if table.controller.slot is not None:
            self._refresh_record(table)
            table.controller.save_now()

    def _refresh_record(self, table: _Table) -> None:
        """Put the table's record in its slot for the controller's next autosave."""
        slot = table.controller.slot
        if slot is not None:
            slot.table = table.record()

    def _update_empty(self, table: _Table) -> None:
        if not table.present() and not table.spectators:
            if table.empty_since is None:
                table.empty_since = self._clock()
        else:
            table.empty_since = None

    def close_idle(self) -> list[str]:
        """Close the tables nobody has been at for ``keep_empty`` seconds (a day); returns
        their ids. A closed table's file stays, marked closed (never restored)."""
        now = self._clock()
        closed = []
        for table in list(self._tables.values()):
            if table.closed:
                continue
            self._update_empty(table)
            if table.empty_since is not None and now - table.empty_since >= self.keep_empty:
                self._close(table)
                closed.append(table.table_id)
        return closed

    def _close(self, table: _Table) -> None:
        table.closed = True
        if table.driving is not None:
            table.driving.cancel()
        self._save_record(table)
        table.controller.close()
        for sub in list(table.subscribers):
            sub.close()
        del self._tables[table.table_id]

    def shutdown(self) -> None:
        """Stop every table's computers and release their files (they stay saved)."""
        for table in self._tables.values():
            if table.driving is not None:
                table.driving.cancel()
            table.controller.close()
        self._tables.clear()

    def restore(self) -> list[str]:
        """Open the tables saved in the store (after a restart): every one not closed, with
        its seats, holders and stand-ins; the people are away until they come back. Returns
        the ids of the tables restored."""
        from casino_tui.saves import SaveError

        if self.store is None:
            return []
        out = []
        for entry in self.store.entries():
            if entry.error is not None:
                continue
            try:
                game = self.store.load(entry)
            except SaveError:
                continue
            record = game.table
            if not isinstance(record, dict) or record.get("closed") \
                    or not isinstance(record.get("id"), str) or record["id"] in self._tables:
                self.store.close(game.slot)
                continue
            table = self._restored(game, record)
            self._tables[table.table_id] = table
            self._watch(table)
            out.append(table.table_id)
        return out

    def adopt(self, game: LoadedGame, *, play: bool = True) -> str:
        """Open one saved table (its ``extra.table`` record, as :meth:`restore` does for each
        file; another host ran it until now) and let its computers play on if it is their
        turn (``play``). Its people are away until they come back. Returns its id; raises
        :class:`HubError` when ``game`` is not a table that may be opened."""
        record = game.table
        if not isinstance(record, dict) or record.get("closed") \
                or not isinstance(record.get("id"), str):
            raise HubError("this game is not an open table")
        if record["id"] in self._tables:
            raise HubError("this table is open already")
        table = self._restored(game, record)
        self._tables[table.table_id] = table
        self._watch(table)
        if play:
            self._drive(table)
        return table.table_id

    def _restored(self, game: LoadedGame, record: dict[str, Any]) -> _Table:
        now = self._clock()
        config = GameConfig(
            preset=game.state.rules.preset_name, players=game.state.num_players,
            seats=tuple(SeatConfig(s.name, s.is_human, s.level or DEFAULT_LEVEL)
                        for s in game.seats),
            seed=game.state.seed if isinstance(game.state.seed, int) else None)
        ctl = TableController(config, game.state, resumed=True,
                              start_position=game.start_position, store=self.store,
                              slot=game.slot)
        if self.save_in_background:
            ctl.save_in_background()
        holders = [s.player for s in game.seats]
        stand_in = record.get("stand_in") or {}
        away = record.get("away_since") or {}
        for i, s in enumerate(ctl.seats):
            if holders[i] is None:
                continue
            level = stand_in.get(str(i)) if isinstance(stand_in, dict) else None
            since = away.get(str(i)) if isinstance(away, dict) else None
            ctl.set_seat(i, replace(s, stand_in=isinstance(level, str), level=level
                                    if isinstance(level, str) else None,
                                    away_since=float(since) if isinstance(since, int | float)
                                    else now))
        creator = record.get("creator") or {}
        empty = record.get("empty_since")
        if str(creator.get("id", "")) in holders:
            ctl.creator_seat = holders.index(str(creator.get("id", "")))
        return _Table(
            str(record["id"]), codes.normalize_code(str(record.get("code"))) or self._code(),
            bool(record.get("public", True)),
            Person(str(creator.get("id", "")), str(creator.get("name", "?"))), ctl,
            holders, started=bool(record.get("started")),
            empty_since=float(empty) if isinstance(empty, int | float) else now)
