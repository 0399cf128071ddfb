"""Tables across hosts through one PostgreSQL: :class:`PgHub`, a
:class:`~casino_tui.table.hub.TableHub` whose hosts talk only through the database.

Every table is run by one host at a time, its *owner*, which holds a lease on it (the row's
``owner``, ``epoch`` and ``expires_at``, renewed every :data:`RENEW` seconds, good for
:data:`LEASE`). The owner runs the table exactly as a single server does: a
:class:`~casino_tui.table.hub.LocalHub` holds the tables this host owns, saving each into a
:class:`~casino_tui.store.docs.DocStore` (the save format, in memory). After every change the
owner *flushes* the table in one transaction: the save document, the directory row (code,
seats, scores: what ``list_tables`` and ``find`` read), the new events, each filtered for
each audience (every seat, and spectators: never an unfiltered event), the answers to the
calls it served, and a NOTIFY. That transaction first locks the table's row and checks that
the lease is still this host's, under the same epoch: an owner that lost its table (stopped
past its lease while another host took it over) finds another epoch, stops running the table
at once and writes nothing.

A call for a table owned elsewhere becomes an *intent* row (the op, its arguments in the
table channel's JSON, the person) and a NOTIFY; the owner applies it to its LocalHub and
writes the answer (a value, or a refusal) with the flush; the caller waits for it (at most
:data:`CALL_TIMEOUT` seconds). Subscriptions read the numbered event rows of the person's
audience, woken by NOTIFY and caught up from their last number every :data:`POLL` seconds
in case a notification was missed. When a lease runs out (its host died), any host claims
the table (epoch + 1), restores it from its last saved document, and goes on; the table's
events are then numbered anew (a new ``TableView.epoch``), so the subscriptions of the old
numbering end (``lost``: take a fresh snapshot), as after a restart of a single server.
The calls the gone owner had taken and not answered are handed to the new owner with the
claim (nothing of them was written: an answer is written with its change), and an owner
whose flush failed (the store away) writes the answers of the calls it did with the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from casino_tui.engine import Move
from casino_tui.saves import SaveError
from casino_tui.table import codes
from casino_tui.table.codec import JSON, move_from_json, move_to_json
from casino_tui.table.config import DEFAULT_LEVEL, GameConfig
from casino_tui.table.controller import MoveRefused, Thinker
from casino_tui.table.events import TableEvent, TableView
from casino_tui.table.hub import (
    AWAY_GRACE,
    DAY,
    EventFeed,
    HubError,
    LocalHub,
    Person,
    Subscription,
    TableInfo,
    UnknownCode,
)

from .db import Conn, Schema, StoreUnavailable, check_url, connect, migrate, redact
from .docs import DocStore, load_document

log = logging.getLogger("casino_tui.store.tables")

LEASE = 7.0  # seconds a table's lease is good for without a renewal
RENEW = 2.0  # seconds between renewals of this host's leases
SCAN = 1.0  # seconds between looks for tables whose owner is gone
POLL = 1.0  # seconds between catch-ups of subscriptions and calls (a missed NOTIFY)
CALL_TIMEOUT = 15.0  # seconds a call waits for the table's owner (a takeover takes < 10)
KEEP_INTENTS = 300  # seconds answered calls are kept before they are removed

EVENTS_CHANNEL = "casino_table_events"  # payload: the table's id
INTENTS_CHANNEL = "casino_table_intents"  # payload: the table's id
RESULTS_CHANNEL = "casino_table_results"  # payload: the intent's id

SPECTATORS = -1  # the audience of the people watching

MOVED = "this table has just moved to another server: try again"
NOT_ANSWERING = "the table is not answering (its server may be restarting): try again soon"
NO_TABLE = "there is no such table (it may have closed)"
UNSURE = ("the table's server stopped while it was doing this: look at the table to see "
          "whether it was done")

SCHEMA = Schema("tables", (
    """
    create table casino_tables (
        table_id text primary key,
        code text not null,
        public boolean not null,
        creator text not null,
        holders jsonb not null default '[]',
        info jsonb not null,
        finished boolean not null default false,
        closed boolean not null default false,
        game_id text,
        events_epoch text not null default '',
        owner text,
        epoch integer not null default 0,
        expires_at timestamptz not null default now(),
        created timestamptz not null default now(),
        updated timestamptz not null default now()
    );
    create unique index casino_tables_open_code on casino_tables (code) where not closed;
    create index casino_tables_expiry on casino_tables (expires_at) where not closed;
    create table casino_table_games (
        game_id text primary key,
        table_id text not null,
        doc text not null,
        updated timestamptz not null default now()
    );
    create index casino_table_games_table on casino_table_games (table_id);
    create table casino_table_events (
        table_id text not null,
        events_epoch text not null,
        audience smallint not null,
        number integer not null,
        event jsonb not null,
        primary key (table_id, events_epoch, audience, number)
    );
    create table casino_table_intents (
        id bigserial primary key,
        table_id text not null,
        op text not null,
        args jsonb not null,
        person_id text not null,
        person_name text not null,
        state text not null default 'pending',
        result jsonb,
        deadline timestamptz not null,
        created timestamptz not null default now()
    );
    create index casino_table_intents_pending on casino_table_intents (table_id, id)
        where state = 'pending';
    create index casino_table_intents_created on casino_table_intents (created);
    """,
))

# the ops a host asks of a table's owner (their arguments as the table channel's JSON)
OPS = frozenset({"join", "take_seat", "start", "leave", "mark_away", "come_back",
                 "hand_to_computer", "give_back", "new_game", "spectate", "chat",
                 "submit_move", "next_round", "snapshot", "events_after"})
READ_OPS = frozenset({"snapshot", "events_after"})  # change nothing: no flush of their own


def host_id() -> str:
    """This process's name among the hosts (the leases it holds say it)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


def _refusal(err: BaseException) -> dict[str, JSON]:
    if isinstance(err, MoveRefused):
        return {"refused": "move", "reason": err.reason}
    if isinstance(err, UnknownCode):
        return {"refused": "code", "reason": err.reason}
    if isinstance(err, HubError):
        return {"refused": "hub", "reason": err.reason}
    return {"refused": "hub", "reason": "the table could not do that (an error on its server)"}


def _raise_refusal(result: Mapping[str, Any]) -> None:
    kind, reason = result.get("refused"), str(result.get("reason") or "refused")
    if kind == "move":
        raise MoveRefused(reason)
    if kind == "code":
        raise UnknownCode(reason)
    raise HubError(reason)


@dataclass
class _Owned:
    """A table this host owns: its lease's epoch and what of it is written."""

    table_id: str
    epoch: int
    events_epoch: str = ""  # the numbering of the events written so far
    flushed: int = 0  # the number of the last event written
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one change or flush at a time
    dirty: bool = False
    flusher: asyncio.Task[None] | None = None
    serving: asyncio.Task[None] | None = None
    again: bool = False  # more intents came while serving
    answers: list[tuple[int, JSON]] = field(default_factory=list)  # taken, not written yet


class Fenced(HubError):
    """This host no longer owns the table (its lease went to another host)."""

    def __init__(self) -> None:
        super().__init__(MOVED)


class PgSubscription(EventFeed):
    """A :class:`~casino_tui.table.hub.Subscription` that reads a table's event rows for one
    audience (a seat, or :data:`SPECTATORS`) in one numbering (``events_epoch``). It is lost
    when the table is numbered anew (taken over by another host), closes, or too many events
    wait unread; :meth:`next` then raises :class:`HubError` once no event waits."""

    def __init__(self, hub: PgHub, table_id: str, person: Person, audience: int,
                 events_epoch: str, after: int) -> None:
        super().__init__(after)
        self._hub = hub
        self.table_id = table_id
        self.person = person
        self.audience = audience
        self.events_epoch = events_epoch

    def _release(self) -> None:
        self._hub._forget(self)


class PgHub:
    """The tables of several hosts sharing one PostgreSQL (see the module's text).

    ``url``: the store; ``thinker``: this host's computer players (for the tables it owns);
    ``host``: its name in the leases (default: host name, process id and a random part);
    ``lease``, ``renew``, ``scan``, ``poll``, ``call_timeout``: seconds (tests shorten them);
    ``new_code``, ``clock``, ``away_grace``, ``keep_empty``: as for LocalHub. Call
    :meth:`open` (connects, applies nothing to the schema: see :func:`migrate`), then
    :meth:`restore` once; :meth:`close_idle` now and then; :meth:`aclose` at the end."""

    def __init__(self, url: str, thinker: Thinker, *, host: str | None = None,
                 lease: float = LEASE, renew: float = RENEW, scan: float = SCAN,
                 poll: float = POLL, call_timeout: float = CALL_TIMEOUT,
                 new_code: Callable[[], str] | None = None,
                 clock: Callable[[], float] = time.time, away_grace: float = AWAY_GRACE,
                 keep_empty: float = DAY) -> None:
        self.url = check_url(url)
        self.host = host or host_id()
        self.lease, self.renew, self.scan, self.poll = lease, renew, scan, poll
        self.call_timeout = call_timeout
        self.docs = DocStore()
        self.local = LocalHub(thinker, self.docs,  # type: ignore[arg-type] # (duck-typed)
                              new_code=new_code, clock=clock, away_grace=away_grace,
                              keep_empty=keep_empty)
        self._owned: dict[str, _Owned] = {}
        self._subs: dict[str, set[PgSubscription]] = {}
        self._feeding: dict[str, asyncio.Task[None]] = {}
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._pool: AsyncConnectionPool[Conn] | None = None
        self._listener: Conn | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._spawned: set[asyncio.Task[Any]] = set()
        self._renewed = time.monotonic()
        self._swept = 0.0  # when answered calls were last removed
        self._away = False  # the store did not answer the last background job
        self._listening_as = f"casino-tui tables {self.host} (notifications)"
        self.closed = False
        self.takeovers = 0  # tables this host took over from a host that was gone

    # ------------------------------------------------------------------ start and stop
    async def open(self) -> None:
        """Connect (the pool, and a connection that listens); `StoreUnavailable` if the
        database cannot be reached."""
        pool: AsyncConnectionPool[Conn] = AsyncConnectionPool(
            self.url, min_size=2, max_size=6, open=False, timeout=self.call_timeout,
            kwargs={"autocommit": True, "application_name": f"casino-tui tables {self.host}"})
        try:
            await pool.open(wait=True, timeout=10)
            listener = await psycopg.AsyncConnection.connect(
                self.url, autocommit=True, application_name=self._listening_as)
        except (psycopg.OperationalError, PoolTimeout) as exc:
            await pool.close()
            raise StoreUnavailable(f"cannot reach the store {redact(self.url)}: "
                                   f"{exc}") from exc
        for channel in (EVENTS_CHANNEL, INTENTS_CHANNEL, RESULTS_CHANNEL):
            await listener.execute(f"listen {channel}")
        self._pool, self._listener = pool, listener
        self._start_tasks()

    def _start_tasks(self) -> None:
        """The background: notifications, renewals, takeovers, catch-ups."""
        assert self._listener is not None
        loop = asyncio.get_running_loop()
        self._renewed = time.monotonic()
        self._tasks = [loop.create_task(self._listen(self._listener)),
                       loop.create_task(self._every(self.renew, self._renew)),
                       loop.create_task(self._every(self.scan, self._claim_orphans)),
                       loop.create_task(self._every(self.poll, self._catch_up))]

    async def restore(self) -> list[str]:
        """Take over the tables no live host owns (after a restart of every host, or the
        death of one); returns their ids."""
        return await self._claim_orphans()

    async def aclose(self) -> None:
        """Stop: the last changes of this host's tables are written and their leases given
        up, so that another host takes them over at once."""
        if self.closed:
            return
        self.closed = True
        for task in self._tasks:
            task.cancel()
        for table_id in list(self._owned):
            owned = self._owned[table_id]
            with contextlib.suppress(Exception):
                await self.local.idle(table_id)
            with contextlib.suppress(Exception):
                async with owned.lock:
                    await self._flush(owned)
        if self._owned:
            with contextlib.suppress(Exception):
                async with self._conn() as conn:
                    await conn.execute(
                        "update casino_tables set expires_at = now(), owner = null "
                        "where owner = %s", (self.host,))
        self.local.shutdown()
        self._owned.clear()
        for task in [*self._spawned, *self._feeding.values()]:
            task.cancel()
        for fut in self._waiting.values():
            if not fut.done():  # the caller is told (a HubError), not cancelled
                fut.set_exception(HubError("the tables' store is closed"))
        await self._stop_connections()

    def abandon(self) -> None:
        """Stop at once and write nothing more, as a killed host would: the leases run out
        and another host takes the tables over (tests; a host that knows it is cut off)."""
        self.closed = True
        for task in [*self._tasks, *self._spawned, *self._feeding.values()]:
            task.cancel()
        for owned in self._owned.values():
            for job in (owned.flusher, owned.serving):
                if job is not None:
                    job.cancel()
        self.local.shutdown()
        self._owned.clear()
        for fut in self._waiting.values():
            if not fut.done():  # the caller is told (a HubError), not cancelled
                fut.set_exception(HubError("the tables' store is closed"))
        self._spawn(self._stop_connections())

    async def _stop_connections(self) -> None:
        listener, self._listener = self._listener, None
        pool, self._pool = self._pool, None
        if listener is not None:
            with contextlib.suppress(Exception):
                await listener.close()
        if pool is not None:
            with contextlib.suppress(Exception):
                await pool.close(timeout=2)

    def shutdown(self) -> None:
        """As LocalHub's (the server's synchronous end): stop this host's tables; prefer
        :meth:`aclose`, which also gives up their leases."""
        self.abandon()

    @contextlib.asynccontextmanager
    async def _conn(self) -> Any:
        if self._pool is None:
            raise HubError("the tables' store is closed")
        try:
            async with self._pool.connection() as conn:
                yield conn
        except (psycopg.OperationalError, PoolTimeout) as exc:
            raise HubError(f"the tables' store cannot be reached ({exc})"[:300]) from exc

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._spawned.add(task)
        task.add_done_callback(self._spawned.discard)
        return task

    async def _every(self, seconds: float, job: Callable[[], Any]) -> None:
        while True:
            await asyncio.sleep(seconds)
            try:
                await job()
            except asyncio.CancelledError:
                raise
            except (HubError, psycopg.Error) as exc:
                if not self._away:  # said once, not every second
                    self._away = True
                    log.warning("tables: %s", exc)
                continue
            except Exception:
                log.exception("tables: a background job failed")
            if self._away:
                self._away = False
                log.info("tables: the store answers again")

    # ------------------------------------------------------------------ notifications
    async def _listen(self, conn: Conn) -> None:
        """Hand each notification on; a connection that breaks (the store restarted) is made
        again (meanwhile the catch-up every :data:`POLL` seconds does the work)."""
        while True:
            try:
                async for note in conn.notifies():
                    try:
                        self._notified(note.channel, note.payload)
                    except Exception:
                        log.exception("tables: a notification could not be handled")
            except asyncio.CancelledError:
                raise
            except psycopg.Error as exc:
                if self.closed:
                    return
                log.warning("tables: notifications stopped (%s): catching up every %g s "
                            "until they are back", exc, self.poll)
            while not self.closed:
                await asyncio.sleep(self.poll)
                try:
                    fresh = await psycopg.AsyncConnection.connect(
                        self.url, autocommit=True, application_name=self._listening_as)
                    for channel in (EVENTS_CHANNEL, INTENTS_CHANNEL, RESULTS_CHANNEL):
                        await fresh.execute(f"listen {channel}")
                except psycopg.Error:
                    continue
                with contextlib.suppress(Exception):
                    await conn.close()
                conn = self._listener = fresh
                log.info("tables: notifications are back")
                break
            else:
                return

    def _notified(self, channel: str, payload: str) -> None:
        if channel == EVENTS_CHANNEL:
            self._feed(payload)
        elif channel == INTENTS_CHANNEL:
            if payload in self._owned:
                self._serve(payload)
        elif channel == RESULTS_CHANNEL:
            with contextlib.suppress(ValueError):
                intent = int(payload)
                if intent in self._waiting:
                    self._spawn(self._fetch_results([intent]))

    async def _catch_up(self) -> None:
        """What a missed notification would have brought: events, calls, answers."""
        for table_id in list(self._subs):
            self._feed(table_id)
        for table_id in list(self._owned):
            self._serve(table_id)
        if self._waiting:
            await self._fetch_results(list(self._waiting))

    # ------------------------------------------------------------------ leases
    async def _renew(self) -> None:
        owned = list(self._owned.values())
        try:
            async with self._conn() as conn:
                rows = await (await conn.execute(
                    "update casino_tables t set expires_at = now() + make_interval(secs => %s) "
                    "from unnest(%s::text[], %s::int[]) as o(id, ep) "
                    "where t.table_id = o.id and t.epoch = o.ep and t.owner = %s "
                    "and not t.closed returning t.table_id",
                    (self.lease, [o.table_id for o in owned], [o.epoch for o in owned],
                     self.host))).fetchall() if owned else []
                if time.monotonic() - self._swept > KEEP_INTENTS / 10:
                    self._swept = time.monotonic()
                    await conn.execute(
                        "delete from casino_table_intents "
                        "where created < now() - make_interval(secs => %s)", (KEEP_INTENTS,))
        except HubError:
            if owned and time.monotonic() - self._renewed > self.lease:
                log.warning("tables: the store has not renewed this host's leases for "
                            "%g s: its tables stop here (another host takes them over)",
                            self.lease)
                for o in owned:
                    self._lose(o.table_id)
            raise
        self._renewed = time.monotonic()
        kept = {str(r[0]) for r in rows}
        for o in owned:
            if o.table_id not in kept and self._owned.get(o.table_id) is o:
                log.warning("tables: table %s is run by another host now", o.table_id)
                self._lose(o.table_id)

    def _lose(self, table_id: str) -> None:
        """This host no longer owns the table: stop running it, write nothing more."""
        owned = self._owned.pop(table_id, None)
        if owned is not None:
            for task in (owned.flusher, owned.serving):
                if task is not None and task is not asyncio.current_task():
                    task.cancel()
        self.local.drop(table_id)
        self.docs.forget(table_id)

    async def _claim_orphans(self) -> list[str]:
        """Take over every open table whose lease ran out; returns their ids."""
        out: list[str] = []
        while not self.closed:
            async with self._conn() as conn:
                # the calls the gone owner took and never answered are to be done again:
                # their answers and their changes are written together, so none of it was
                row = await (await conn.execute(
                    "with t as (update casino_tables set owner = %s, epoch = epoch + 1, "
                    "expires_at = now() + make_interval(secs => %s), updated = now() "
                    "where table_id = (select table_id from casino_tables where not closed "
                    "and expires_at < now() order by expires_at limit 1 "
                    "for update skip locked) returning table_id, epoch, game_id), "
                    "i as (update casino_table_intents set state = 'pending' "
                    "where table_id = (select table_id from t) and state = 'taken') "
                    "select table_id, epoch, game_id from t",
                    (self.host, self.lease))).fetchone()
                if row is None:
                    return out
                table_id, epoch, game_id = str(row[0]), int(row[1]), row[2]
                doc = None
                if game_id is not None:
                    found = await (await conn.execute(
                        "select doc from casino_table_games where game_id = %s",
                        (game_id,))).fetchone()
                    doc = found[0] if found else None
            if await self._take_over(table_id, epoch, game_id, doc):
                out.append(table_id)
        return out

    async def _take_over(self, table_id: str, epoch: int, game_id: str | None,
                         doc: str | None) -> bool:
        self._lose(table_id)  # (a table this host had lost track of)
        try:
            if game_id is None or doc is None:
                raise SaveError("the table has no saved game", "not_found")
            game = load_document(game_id, doc)
            if game.table is None or game.table.get("id") != table_id:
                raise SaveError("the saved game is not this table's", "unreadable")
            self.local.adopt(game)
        except (SaveError, HubError) as err:
            log.warning("tables: table %s cannot be taken over, closed: %s", table_id, err)
            async with self._conn() as conn:
                await conn.execute(
                    "update casino_tables set closed = true, updated = now() "
                    "where table_id = %s and owner = %s and epoch = %s",
                    (table_id, self.host, epoch))
            return False
        owned = _Owned(table_id, epoch)
        self._owned[table_id] = owned
        self._watch(owned)
        self.takeovers += 1
        log.info("tables: took over table %s (epoch %d) at move %d", table_id, epoch,
                 len(self.local.controller(table_id).state.history))
        async with owned.lock:
            await self._flush(owned)
        self._serve(table_id)
        return True

    def _watch(self, owned: _Owned) -> None:
        """Flush the table after each of its events (a computer's move comes on its own)."""
        self.local.controller(owned.table_id).listeners.append(lambda _e: self._dirty(owned))

    def _dirty(self, owned: _Owned) -> None:
        """Something of the table is not written yet: write it soon (in a task)."""
        if self._owned.get(owned.table_id) is owned:
            owned.dirty = True
            if owned.flusher is None or owned.flusher.done():
                owned.flusher = self._spawn(self._flush_soon(owned))

    async def _flush_soon(self, owned: _Owned) -> None:
        while owned.dirty and self._owned.get(owned.table_id) is owned:
            try:
                async with owned.lock:
                    if owned.dirty and self._owned.get(owned.table_id) is owned:
                        await self._flush(owned)
            except Fenced:
                return
            except HubError as exc:  # the store is away: try again
                log.warning("tables: table %s is not saved: %s", owned.table_id, exc)
                owned.dirty = True
                await asyncio.sleep(self.poll)

    # ------------------------------------------------------------------ writing a table
    async def _flush(self, owned: _Owned,
                     results: Iterable[tuple[int, JSON]] = ()) -> None:
        """Write what changed at the table (under the lease's epoch: :class:`Fenced` if the
        lease is gone, and the table stops here). Hold ``owned.lock``."""
        table_id = owned.table_id
        owned.dirty = False
        docs = self.docs.take(table_id)
        try:
            ctl = self.local.controller(table_id)
        except HubError:  # closed here (close_idle): its last document says so
            ctl = None
        rows: list[tuple[str, str, int, int, Jsonb]] = []
        info: dict[str, JSON] | None = None
        holders: tuple[str | None, ...] = ()
        events_epoch, flushed = owned.events_epoch, owned.flushed
        if ctl is not None:
            if ctl.epoch != events_epoch:
                events_epoch, flushed = ctl.epoch, 0
            audiences = [*range(ctl.num_players), SPECTATORS]
            for event in ctl.events[flushed:]:
                for audience in audiences:
                    seat = None if audience == SPECTATORS else audience
                    rows.append((table_id, events_epoch, audience, event.number,
                                 Jsonb(event.for_seat(seat).to_json())))
            info = self.local.info(table_id).to_json()
            holders = self.local.holders(table_id)
            number = ctl.number
            game_id = ctl.slot.game_id if ctl.slot is not None else None
        results = [*owned.answers, *results]
        owned.answers = []
        try:
            async with self._conn() as conn, conn.transaction():
                row = await (await conn.execute(
                    "select owner, epoch, events_epoch from casino_tables "
                    "where table_id = %s for update", (table_id,))).fetchone()
                if row is None or row[0] != self.host or int(row[1]) != owned.epoch:
                    raise Fenced()
                async with conn.pipeline():  # one round trip for the rest
                    for game, doc in docs.items():
                        await conn.execute(
                            "insert into casino_table_games (game_id, table_id, doc) "
                            "values (%s, %s, %s) on conflict (game_id) do update "
                            "set doc = excluded.doc, updated = now()",
                            (game, table_id, doc.decode()))
                    if ctl is None:
                        await conn.execute(
                            "update casino_tables set closed = true, updated = now() "
                            "where table_id = %s", (table_id,))
                        await conn.execute(
                            "delete from casino_table_events where table_id = %s", (table_id,))
                    else:
                        if row[2] != events_epoch:  # numbered anew: the old numbering goes
                            await conn.execute(
                                "delete from casino_table_events where table_id = %s "
                                "and events_epoch <> %s", (table_id, events_epoch))
                        if rows:
                            async with conn.cursor() as cur:
                                await cur.executemany(
                                    "insert into casino_table_events (table_id, events_epoch, "
                                    "audience, number, event) values (%s, %s, %s, %s, %s) "
                                    "on conflict do nothing", rows)
                        assert info is not None
                        await conn.execute(
                            "update casino_tables set info = %s, holders = %s, code = %s, "
                            "finished = %s, game_id = coalesce(%s, game_id), events_epoch = %s, "
                            "expires_at = greatest(expires_at, now() + make_interval(secs => %s)), "
                            "updated = now() where table_id = %s",
                            (Jsonb(info), Jsonb(list(holders)), info["code"], info["finished"],
                             game_id, events_epoch, self.lease, table_id))
                    for intent, value in results:
                        await conn.execute(
                            "update casino_table_intents set state = 'done', result = %s "
                            "where id = %s", (Jsonb(value), intent))
                        await conn.execute("select pg_notify(%s, %s)",
                                           (RESULTS_CHANNEL, str(intent)))
                    await conn.execute("select pg_notify(%s, %s)", (EVENTS_CHANNEL, table_id))
        except Fenced:
            log.warning("tables: table %s went to another host: it stops here", table_id)
            self._lose(table_id)
            raise
        except BaseException:
            self.docs.put_back(table_id, docs)  # not written: the next flush writes them
            owned.answers[:0] = results  # ... and the answers of the calls done here
            if not isinstance(sys.exc_info()[1], asyncio.CancelledError):
                self._dirty(owned)
            raise
        owned.events_epoch = events_epoch
        if ctl is not None:
            owned.flushed = number
        else:
            self._owned.pop(table_id, None)

    # ------------------------------------------------------------------ calls
    async def _call(self, table_id: str, op: str, person: Person,
                    args: dict[str, JSON]) -> JSON:
        """``op`` at the table: here if this host owns it, else through its owner."""
        owned = self._owned.get(table_id)
        if owned is not None:
            try:
                async with owned.lock:
                    if self._owned.get(table_id) is owned:
                        value = await self._run(table_id, op, person, args)
                        if op not in READ_OPS:
                            await self._flush(owned)
                        return value
            except Fenced:
                pass  # what it did here is not written: the table's new owner does it
        return await self._ask(table_id, op, person, args)

    async def _run(self, table_id: str, op: str, person: Person,
                   a: Mapping[str, Any]) -> JSON:
        """Apply ``op`` to this host's hub; its value as the table channel's JSON."""
        hub = self.local
        if op == "join":
            return (await hub.join(str(a["code"]), person)).to_json()
        if op == "take_seat":
            return await hub.take_seat(table_id, person, a.get("seat"))
        if op == "start":
            await hub.start(table_id, person)
        elif op == "leave":
            await hub.leave(table_id, person)
        elif op == "mark_away":
            await hub.mark_away(table_id, person)
        elif op == "come_back":
            return await hub.come_back(table_id, person)
        elif op == "hand_to_computer":
            await hub.hand_to_computer(table_id, person, int(a["seat"]),
                                       str(a.get("level") or DEFAULT_LEVEL))
        elif op == "give_back":
            await hub.give_back(table_id, person, int(a["seat"]))
        elif op == "new_game":
            await hub.new_game(table_id, person)
        elif op == "spectate":
            return (await hub.spectate(table_id, person)).to_json()
        elif op == "chat":
            return (await hub.chat(table_id, person, str(a["text"]))).to_json()
        elif op == "submit_move":
            events = await hub.submit_move(table_id, person, int(a["seat"]),
                                           move_from_json(a["move"]))
            return [e.to_json() for e in events]
        elif op == "next_round":
            await hub.next_round(table_id, person)
        elif op == "snapshot":
            return (await hub.snapshot(table_id, person)).to_json()
        elif op == "events_after":
            return [e.to_json() for e in
                    await hub.events_after(table_id, person, int(a["number"]))]
        else:
            raise HubError(f"not an op of the tables: {op!r}"[:80])
        return None

    async def _ask(self, table_id: str, op: str, person: Person,
                   args: dict[str, JSON]) -> JSON:
        """Leave an intent for the table's owner and wait for its answer."""
        if self.closed:
            raise HubError("the tables' store is closed")
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        async with self._conn() as conn:
            row = await (await conn.execute(
                "with i as (insert into casino_table_intents (table_id, op, args, person_id, "
                "person_name, deadline) select table_id, %s, %s, %s, %s, "
                "now() + make_interval(secs => %s) from casino_tables "
                "where table_id = %s and not closed returning id) "
                "select id, pg_notify(%s, %s) from i",
                (op, Jsonb(args), person.id, person.name, self.call_timeout, table_id,
                 INTENTS_CHANNEL, table_id))).fetchone()
        if row is None:
            raise HubError(NO_TABLE)
        intent = int(row[0])
        self._waiting[intent] = fut
        try:
            result = await asyncio.wait_for(asyncio.shield(fut), self.call_timeout)
        except TimeoutError:
            result = await self._give_up(intent, fut)
        finally:
            self._waiting.pop(intent, None)
        if "refused" in result:
            _raise_refusal(result)
        value: JSON = result.get("value")
        return value

    async def _give_up(self, intent: int,
                       fut: asyncio.Future[dict[str, Any]]) -> dict[str, Any]:
        """No answer in time. An intent no host took is withdrawn (it never happens); one
        the owner took is being done: its answer comes with the change, or never if the
        owner died (its change then never reaches the store), so it is waited for a lease
        longer, then the player is told to look."""
        async with self._conn() as conn:
            row = await (await conn.execute(
                "update casino_table_intents set state = 'cancelled' where id = %s "
                "and state = 'pending' returning id", (intent,))).fetchone()
        if row is not None:
            return {"refused": "hub", "reason": NOT_ANSWERING}
        await self._fetch_results([intent])
        try:
            return await asyncio.wait_for(asyncio.shield(fut), self.lease + self.poll)
        except TimeoutError:
            return {"refused": "hub", "reason": UNSURE}

    async def _fetch_results(self, intents: list[int]) -> None:
        async with self._conn() as conn:
            rows = await (await conn.execute(
                "select id, result from casino_table_intents where id = any(%s) "
                "and state = 'done'", (intents,))).fetchall()
        for intent, result in rows:
            fut = self._waiting.get(int(intent))
            if fut is not None and not fut.done() and isinstance(result, dict):
                fut.set_result(result)

    def _serve(self, table_id: str) -> None:
        """Answer the intents waiting for a table this host owns (in a task)."""
        owned = self._owned.get(table_id)
        if owned is None:
            return
        if owned.serving is not None and not owned.serving.done():
            owned.again = True
            return
        owned.serving = self._spawn(self._serve_intents(owned))

    async def _serve_intents(self, owned: _Owned) -> None:
        owned.again = True
        while owned.again and self._owned.get(owned.table_id) is owned:
            owned.again = False
            try:
                async with owned.lock:
                    async with self._conn() as conn:
                        rows = await (await conn.execute(
                            "update casino_table_intents set state = 'taken' "
                            "where id in (select id from casino_table_intents "
                            "where table_id = %s and state = 'pending' and deadline > now() "
                            "order by id for update skip locked) "
                            "and exists (select 1 from casino_tables where table_id = %s "
                            "and owner = %s and epoch = %s for share) "  # (no takeover meanwhile)
                            "returning id, op, args, person_id, person_name",
                            (owned.table_id, owned.table_id, self.host,
                             owned.epoch))).fetchall()
                    if not rows:
                        continue
                    results: list[tuple[int, JSON]] = []
                    for intent, op, args, pid, pname in sorted(rows, key=lambda r: r[0]):
                        person = Person(str(pid), str(pname))
                        try:
                            if op not in OPS or not isinstance(args, dict):
                                raise HubError(f"not a call of the tables: {op!r}"[:80])
                            value = await self._run(owned.table_id, op, person, args)
                            results.append((int(intent), {"value": value}))
                        except (HubError, ValueError, KeyError, TypeError) as err:
                            results.append((int(intent), _refusal(err)))
                        except Exception as err:
                            log.exception("tables: %s at table %s failed", op, owned.table_id)
                            results.append((int(intent), _refusal(err)))
                    await self._flush(owned, results)
            except Fenced:
                return
            except HubError as exc:
                log.warning("tables: the calls of table %s wait: %s", owned.table_id, exc)
                return

    # ------------------------------------------------------------------ events
    def _feed(self, table_id: str) -> None:
        """Bring the table's new event rows to its subscriptions here (in a task)."""
        if table_id not in self._subs:
            return
        task = self._feeding.get(table_id)
        if task is not None and not task.done():
            self._feeding[table_id] = self._spawn(self._feed_after(task, table_id))
            return
        self._feeding[table_id] = self._spawn(self._read_events(table_id))

    async def _feed_after(self, before: asyncio.Task[None], table_id: str) -> None:
        with contextlib.suppress(Exception):
            await before
        await self._read_events(table_id)

    async def _read_events(self, table_id: str) -> None:
        subs = [s for s in self._subs.get(table_id, ()) if not s.lost]
        if not subs:
            return
        try:
            async with self._conn() as conn:
                row = await (await conn.execute(
                    "select events_epoch, closed from casino_tables where table_id = %s",
                    (table_id,))).fetchone()
                for s in subs:
                    if row is None or row[1]:
                        s.stop("the table has closed")
                    elif row[0] != s.events_epoch:
                        s.stop("the table was taken over by another server with new event "
                               "numbers: take a fresh snapshot and subscribe again")
                        if s.audience != SPECTATORS:  # they are here: not away at the seat
                            self._spawn(self._back(table_id, s.person))
                live = [s for s in subs if not s.lost]
                if not live:
                    return
                audiences = sorted({s.audience for s in live})
                after = min(s.last for s in live)
                rows = await (await conn.execute(
                    "select audience, event from casino_table_events where table_id = %s "
                    "and events_epoch = %s and audience = any(%s) and number > %s "
                    "order by number", (table_id, live[0].events_epoch, audiences,
                                        after))).fetchall()
        except HubError as exc:
            log.warning("tables: the events of table %s wait: %s", table_id, exc)
            return
        for audience, event in rows:
            parsed = TableEvent.from_json(event)
            for s in live:
                if s.audience == audience:
                    s.deliver(parsed)

    async def _back(self, table_id: str, person: Person) -> None:
        """A person who follows the table from this host is here: a host that took the
        table over thought them away (as after a restart) until they say otherwise."""
        with contextlib.suppress(HubError):
            await self.come_back(table_id, person)

    def _forget(self, sub: PgSubscription) -> None:
        subs = self._subs.get(sub.table_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._subs[sub.table_id]

    # ------------------------------------------------------------------ TableHub
    async def create_table(self, config: GameConfig, creator: Person, *,
                           public: bool = True) -> TableInfo:
        info = await self.local.create_table(config, creator, public=public)
        table_id = info.table_id
        for _ in range(20):
            try:
                async with self._conn() as conn:
                    row = await (await conn.execute(
                        "insert into casino_tables (table_id, code, public, creator, info, "
                        "owner, epoch, expires_at) values (%s, %s, %s, %s, %s, %s, 1, "
                        "now() + make_interval(secs => %s)) on conflict do nothing "
                        "returning epoch",
                        (table_id, info.code, public, creator.id, Jsonb(info.to_json()),
                         self.host, self.lease))).fetchone()
            except psycopg.errors.UniqueViolation:
                row = None
            except HubError:
                self.local.drop(table_id)
                self.docs.forget(table_id)
                raise
            if row is not None:
                break
            self.local.recode(table_id)  # the code is another host's table's
            info = self.local.info(table_id)
        else:  # pragma: no cover - 20 codes taken in a row
            self.local.drop(table_id)
            raise HubError("no free join code: try again")
        owned = _Owned(table_id, 1)
        self._owned[table_id] = owned
        self._watch(owned)
        async with owned.lock:
            await self._flush(owned)
        return _for(self.local.info(table_id), self.local.holders(table_id), creator.id,
                    creator)

    async def list_tables(self, person: Person) -> list[TableInfo]:
        async with self._conn() as conn:
            rows = await (await conn.execute(
                "select info, holders, creator from casino_tables where not closed and "
                "((public and not finished) or holders ? %s) order by created",
                (person.id,))).fetchall()
        out = []
        for info, holders, creator in rows:
            try:
                out.append(_for(TableInfo.from_json(info), holders, creator, person))
            except ValueError:
                continue
        return out

    async def find(self, code: str) -> TableInfo:
        try:
            wanted = codes.parse_code(code)
        except ValueError as err:
            raise HubError(str(err)) from None
        async with self._conn() as conn:
            row = await (await conn.execute(
                "select info from casino_tables where code = %s and not closed",
                (wanted,))).fetchone()
        if row is None:
            raise UnknownCode("no table has this code: check it, or ask for it again")
        return TableInfo.from_json(row[0])

    async def join(self, code: str, person: Person) -> TableInfo:
        info = await self.find(code)
        return TableInfo.from_json(await self._call(info.table_id, "join", person,
                                                    {"code": info.code}))

    async def take_seat(self, table_id: str, person: Person, seat: int | None = None) -> int:
        return _int(await self._call(table_id, "take_seat", person, {"seat": seat}))

    async def start(self, table_id: str, person: Person) -> None:
        await self._call(table_id, "start", person, {})

    async def leave(self, table_id: str, person: Person) -> None:
        await self._call(table_id, "leave", person, {})

    async def mark_away(self, table_id: str, person: Person) -> None:
        await self._call(table_id, "mark_away", person, {})

    async def come_back(self, table_id: str, person: Person) -> int:
        return _int(await self._call(table_id, "come_back", person, {}))

    async def hand_to_computer(self, table_id: str, person: Person, seat: int,
                               level: str = DEFAULT_LEVEL) -> None:
        await self._call(table_id, "hand_to_computer", person, {"seat": seat, "level": level})

    async def give_back(self, table_id: str, person: Person, seat: int) -> None:
        await self._call(table_id, "give_back", person, {"seat": seat})

    async def new_game(self, table_id: str, person: Person) -> None:
        await self._call(table_id, "new_game", person, {})

    async def spectate(self, table_id: str, person: Person) -> TableView:
        return TableView.from_json(await self._call(table_id, "spectate", person, {}))

    async def chat(self, table_id: str, person: Person, text: str) -> TableEvent:
        return TableEvent.from_json(await self._call(table_id, "chat", person, {"text": text}))

    async def submit_move(self, table_id: str, person: Person, seat: int,
                          move: Move) -> list[TableEvent]:
        value = await self._call(table_id, "submit_move", person,
                                 {"seat": seat, "move": move_to_json(move)})
        return [TableEvent.from_json(e) for e in value] if isinstance(value, list) else []

    async def next_round(self, table_id: str, person: Person) -> None:
        await self._call(table_id, "next_round", person, {})

    async def snapshot(self, table_id: str, person: Person) -> TableView:
        return TableView.from_json(await self._call(table_id, "snapshot", person, {}))

    async def events_after(self, table_id: str, person: Person,
                           number: int) -> list[TableEvent]:
        value = await self._call(table_id, "events_after", person, {"number": number})
        return [TableEvent.from_json(e) for e in value] if isinstance(value, list) else []

    async def subscribe(self, table_id: str, person: Person, after: int) -> Subscription:
        """The events after ``after`` in the numbering the table has now, for the person's
        audience (their seat's, or a spectator's, as the owner says)."""
        view = await self.snapshot(table_id, person)  # the owner's check, seat and numbering
        audience = SPECTATORS if view.seat is None else view.seat
        sub = PgSubscription(self, table_id, person, audience, view.epoch, max(0, after))
        self._subs.setdefault(table_id, set()).add(sub)
        await self._read_events(table_id)
        return sub

    # ------------------------------------------------------------------ the server's
    def table_ids(self) -> list[str]:
        """The tables this host runs now."""
        return list(self._owned)

    def census(self) -> dict[str, int]:
        """The tables this host runs, as LocalHub's census counts them."""
        return self.local.census()

    def close_idle(self) -> list[str]:
        """Close the tables of this host nobody has been at for a day (written closed)."""
        closed = self.local.close_idle()
        for table_id in closed:
            owned = self._owned.get(table_id)
            if owned is not None:
                self._spawn(self._write_closed(owned))
        return closed

    async def _write_closed(self, owned: _Owned) -> None:
        with contextlib.suppress(HubError):
            async with owned.lock:
                await self._flush(owned)

    async def idle(self, table_id: str) -> None:
        """Wait until the table's computers have played here and everything is written
        (tests)."""
        owned = self._owned.get(table_id)
        if owned is None:
            return
        await self.local.idle(table_id)
        while owned.flusher is not None and not owned.flusher.done():
            await asyncio.shield(owned.flusher)
        async with owned.lock:
            if self._owned.get(table_id) is owned:
                await self._flush(owned)

    def owns(self, table_id: str) -> bool:
        return table_id in self._owned


async def open_hub(url: str, thinker: Thinker, *, host: str | None = None,
                   **options: Any) -> PgHub:
    """A :class:`PgHub` on the store at ``url``, its "tables" schema brought up to date (under
    the store's advisory lock, so hosts starting together never race), connected, the
    tables no live host owns taken over (see :meth:`PgHub.restore`, called by the caller).
    Raises :class:`~casino_tui.store.db.StoreError` (``StoreUnavailable``: not reachable)."""
    conn = await connect(url)
    try:
        await migrate(conn, [SCHEMA])
    finally:
        await conn.close()
    hub = PgHub(url, thinker, host=host, **options)
    await hub.open()
    return hub


async def import_table_saves(conn: Conn, games_dir: Path) -> dict[str, int]:
    """Bring a server's table saves (``DATA/tables/games/*.json``, the save format with
    ``extra.table``) into the store: every game's document, and a directory row for every
    table not closed, without an owner (the first host to look takes it over). What the
    store has already is never changed, so a second import changes nothing. A file that is
    not a readable table save is counted in ``skipped``. Returns the counts of ``tables``
    and ``games`` added and of files ``skipped``."""
    from casino_tui.saves.files import MAX_SAVE_BYTES

    counts = {"tables": 0, "games": 0, "skipped": 0}
    docs = DocStore()
    hub = LocalHub(_NoThinker(), docs)  # type: ignore[arg-type] # (duck-typed)
    found: list[tuple[datetime, str, bytes, Any]] = []
    for path in sorted(games_dir.glob("*.json")) if games_dir.is_dir() else []:
        game_id = path.name.removesuffix(".json")
        try:
            if path.stat().st_size > MAX_SAVE_BYTES:
                raise SaveError("too large", "unreadable")
            raw = path.read_bytes()
            game = load_document(game_id, raw)
        except (OSError, SaveError) as err:
            log.warning("store import: %s skipped: %s", path, err)
            counts["skipped"] += 1
            continue
        if game.table is None or not isinstance(game.table.get("id"), str):
            counts["skipped"] += 1  # not a table's game
            continue
        found.append((game.updated or game.created or datetime.min.replace(tzinfo=UTC),
                      game_id, raw, game))
    found.sort(key=lambda f: f[0])
    async with conn.transaction():
        for _, game_id, raw, game in found:
            row = await (await conn.execute(
                "insert into casino_table_games (game_id, table_id, doc) values (%s, %s, %s) "
                "on conflict (game_id) do nothing returning game_id",
                (game_id, game.table["id"], raw.decode()))).fetchone()
            counts["games"] += row is not None
        for _, game_id, raw, game in reversed(found):  # a table's newest game first
            table_id = str(game.table["id"])
            if game.table.get("closed"):
                continue
            if (await (await conn.execute("select 1 from casino_tables where table_id = %s",
                                          (table_id,))).fetchone()) is not None:
                continue
            try:
                hub.adopt(game, play=False)
            except HubError:
                counts["skipped"] += 1
                continue
            try:
                while True:
                    info = hub.info(table_id)
                    taken = await (await conn.execute(
                        "select 1 from casino_tables where code = %s and not closed",
                        (info.code,))).fetchone()
                    if taken is None:
                        break
                    hub.recode(table_id)  # another open table has its code
                doc = docs.take(table_id).get(game_id, raw)  # (recoded: the new document)
                await conn.execute(
                    "insert into casino_table_games (game_id, table_id, doc) values (%s, %s, "
                    "%s) on conflict (game_id) do update set doc = excluded.doc",
                    (game_id, table_id, doc.decode()))
                await conn.execute(
                    "insert into casino_tables (table_id, code, public, creator, holders, "
                    "info, finished, game_id, expires_at) values (%s, %s, %s, %s, %s, %s, "
                    "%s, %s, now() - interval '1 second')",
                    (table_id, info.code, info.public, _creator_id(game.table),
                     Jsonb(list(hub.holders(table_id))), Jsonb(info.to_json()),
                     info.finished, game_id))
                counts["tables"] += 1
            finally:
                hub.drop(table_id)
    return counts


def _creator_id(record: Mapping[str, Any]) -> str:
    creator = record.get("creator")
    return str(creator.get("id", "")) if isinstance(creator, Mapping) else ""


class _NoThinker:
    """The computers of tables that are only read (an import): never asked."""

    async def choose(self, view: Any, level: str, seed: int) -> Move:  # pragma: no cover
        raise HubError("no computer plays here")


def _for(info: TableInfo, holders: Sequence[str | None], creator: str,
         person: Person) -> TableInfo:
    """``info`` as ``person`` sees it in a listing (their seat, whether it is theirs)."""
    seat = list(holders).index(person.id) if person.id in holders else None
    return replace(info, your_seat=seat, yours=creator == person.id)


def _int(value: JSON) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise HubError("the table's server gave a wrong answer")
    return value

