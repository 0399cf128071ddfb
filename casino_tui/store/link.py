"""A server's link to the store (:class:`StoreLink`): one connection for its work, one that
listens for notifications, every call bounded in time, and the log told when the store goes
away and when it is back.

A call (:meth:`StoreLink.run`) that does not finish within its timeout, or whose connection
fails, raises :class:`~casino_tui.store.db.StoreUnavailable` at once: the connection is
given up (psycopg's own cancellation of a query on a database that does not answer can take
ten seconds: it goes on in the background and the connection is closed after it). The next
call connects again. A server never waits longer than the timeout for the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import psycopg

from . import db
from . import players as P
from .db import Conn, Schema, StoreError, StoreUnavailable

log = logging.getLogger("casino_tui.store")

T = TypeVar("T")
CALL_TIMEOUT = 5.0  # seconds a call to the store may take
HEARTBEAT_EVERY = 2.0  # seconds between two heartbeats of this host


def new_host_id() -> str:
    """A host id when none is given: the machine's name and a random part (a new one at every
    start, so a restarted server is a new host)."""
    name = "".join(c for c in socket.gethostname() if c.isalnum() or c in "-.")[:40] or "host"
    return f"{name}-{secrets.token_hex(3)}"


class StoreLink:
    """The link of host ``host`` to the store at ``url``. :meth:`open` at start (raises
    :class:`StoreError`), :meth:`close` at the end."""

    def __init__(self, url: str, host: str, *, timeout: float = CALL_TIMEOUT) -> None:
        self.url = url
        self.host = host
        self.timeout = timeout
        self.available = False
        self._conn: Conn | None = None
        self._lock = asyncio.Lock()
        self._away_since: float | None = None
        self._background: set[asyncio.Task[object]] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self._on_notify: Callable[[dict[str, object]], None] | None = None
        self._on_back: list[Callable[[], None]] = []
        self._closing = False

    @property
    def url_shown(self) -> str:
        """The URL without its password."""
        return db.redact(self.url)

    async def open(self, schemas: Sequence[Schema]) -> str:
        """Connect, bring the schema up to date (``db.migrate``), start the heartbeat and the
        listener; returns what ``migrate`` did (a line for the log). Raises StoreError."""
        conn = await db.connect(self.url, timeout=self.timeout)
        try:
            done = await asyncio.wait_for(db.migrate(conn, schemas), 60)
            if await P.host_alive(conn, self.host):
                # the same name's heartbeat: a server of this name that stopped uncleanly just
                # now (forgotten after HOST_STALE s), or another one running
                log.info("the store has a fresh heartbeat of host %s: waiting up to %gs for it "
                         "to stop", self.host, P.HOST_STALE)
                for _ in range(int(P.HOST_STALE * 2) + 2):
                    await asyncio.sleep(0.5)
                    if not await P.host_alive(conn, self.host):
                        break
            if await P.host_alive(conn, self.host):
                raise StoreError(
                    f"another server runs as host {self.host!r} of the store "
                    f"{db.redact(self.url)} (its heartbeat goes on): give each server its "
                    "own --host-name, or stop the other one first")
            await P.heartbeat(conn, self.host)
        except TimeoutError:
            await conn.close()
            raise StoreUnavailable(f"the store {db.redact(self.url)} did not answer within "
                                   "60 s while its schema was brought up to date") from None
        except psycopg.Error as err:
            await conn.close()
            raise StoreError(f"cannot use the store {db.redact(self.url)}: "
                             f"{' '.join(str(err).split())}") from err
        except BaseException:
            await conn.close()
            raise
        self._conn = conn
        self.available = True
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._heartbeat()), loop.create_task(self._listen())]
        return db.describe(done)

    def on_notify(self, handler: Callable[[dict[str, object]], None]) -> None:
        """``handler`` is called with every notification of the players' channel."""
        self._on_notify = handler

    def on_back(self, handler: Callable[[], None]) -> None:
        """``handler`` is called when the store answers again after it was away."""
        self._on_back.append(handler)

    async def close(self) -> None:
        self._closing = True
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        with contextlib.suppress(StoreError):
            await self.run(lambda c: P.host_gone(c, self.host), timeout=2.0)
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()

    # ------------------------------------------------------------------ calls
    async def run(self, call: Callable[[Conn], Awaitable[T]], *,
                  timeout: float | None = None) -> T:
        """``call(conn)`` on the work connection, within ``timeout`` seconds (default: the
        link's). Raises StoreUnavailable when the store cannot be reached or does not answer
        in time (the log says so once, and again when it is back)."""
        limit = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        async with self._lock:
            for attempt in (1, 2):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise StoreUnavailable(f"the store {db.redact(self.url)} did not answer "
                                           f"within {limit:g} s")
                fresh = self._conn is None or self._conn.closed
                conn = await self._connection(left)
                task: asyncio.Task[T] = asyncio.ensure_future(call(conn))
                try:
                    done, _ = await asyncio.wait(
                        {task}, timeout=max(0.05, deadline - time.monotonic()))
                except asyncio.CancelledError:
                    self._abandon(task, conn)
                    raise
                if not done:
                    self._abandon(task, conn)
                    self._went_away(f"no answer within {limit:g} s")
                    raise StoreUnavailable(f"the store {db.redact(self.url)} did not answer "
                                           f"within {limit:g} s")
                try:
                    result = task.result()
                except psycopg.OperationalError as err:
                    self._abandon(task, conn)
                    if attempt == 1 and not fresh:
                        continue  # a connection lost meanwhile (the database restarted)
                    why = " ".join(str(err).split()) or type(err).__name__
                    self._went_away(why)
                    raise StoreUnavailable(
                        f"the store {db.redact(self.url)} failed: {why}") from err
                except psycopg.Error as err:  # the store answered, but refused the call
                    raise StoreError(f"the store {db.redact(self.url)} refused a call: "
                                     f"{' '.join(str(err).split())}") from err
                break
        self._came_back()
        return result

    async def _connection(self, timeout: float) -> Conn:
        if self._conn is not None and not self._conn.closed:
            return self._conn
        self._conn = None
        try:
            conn = await asyncio.wait_for(db.connect(self.url, timeout=timeout), timeout + 1)
        except TimeoutError:
            self._went_away(f"no connection within {timeout:g} s")
            raise StoreUnavailable(f"cannot reach the store {db.redact(self.url)}: no "
                                   f"connection within {timeout:g} s") from None
        except StoreUnavailable as err:
            self._went_away(str(err))
            raise
        self._conn = conn
        return conn

    def _abandon(self, task: asyncio.Task[object], conn: Conn) -> None:
        """Give up ``task`` and its connection: it is cancelled and the connection closed once
        the cancellation is over (in the background)."""
        if self._conn is conn:
            self._conn = None
        task.cancel()
        self._background.add(task)

        def done(_t: asyncio.Task[object]) -> None:
            self._background.discard(task)
            with contextlib.suppress(Exception):
                conn.pgconn.finish()
            if not _t.cancelled():
                _t.exception()  # retrieved: never "exception was never retrieved"

        task.add_done_callback(done)

    def _went_away(self, why: str) -> None:
        if self.available and not self._closing:
            log.warning("the store %s is away (%s): new logins are refused and changed files "
                        "are kept here until it is back", db.redact(self.url), why)
            self._away_since = time.monotonic()
        self.available = False

    def _came_back(self) -> None:
        if self.available:
            return
        self.available = True
        if self._away_since is not None:
            log.info("the store %s is back after %.0f s: sending the files kept meanwhile",
                     db.redact(self.url), time.monotonic() - self._away_since)
            self._away_since = None
            for handler in self._on_back:
                handler()

    # ------------------------------------------------------------------ background
    async def _heartbeat(self) -> None:
        while True:
            with contextlib.suppress(StoreError):
                await self.run(lambda c: P.heartbeat(c, self.host))
            await asyncio.sleep(HEARTBEAT_EVERY)

    async def _listen(self) -> None:
        """LISTEN on the players' channel on a connection of its own, again after a loss."""
        while True:
            try:
                conn = await db.connect(self.url, timeout=self.timeout)
            except StoreError:
                await asyncio.sleep(HEARTBEAT_EVERY)
                continue
            try:
                await asyncio.wait_for(conn.execute(f"listen {P.CHANNEL}"), self.timeout)
                async for note in conn.notifies():
                    self._notified(note.payload)
            except (psycopg.Error, TimeoutError, OSError) as err:
                log.debug("the store's notifications stopped (%s): listening again", err)
            finally:
                with contextlib.suppress(Exception):
                    conn.pgconn.finish()
            await asyncio.sleep(0.5)

    def _notified(self, payload: str) -> None:
        try:
            data = json.loads(payload)
        except ValueError:
            return
        if isinstance(data, dict) and self._on_notify is not None:
            try:
                self._on_notify(data)
            except Exception:
                log.exception("handling a notification of the store failed")
