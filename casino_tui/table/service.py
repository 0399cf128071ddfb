"""The table hub's service: the server's end of the table channel, between the players' app
processes and the one :class:`~casino_tui.table.hub.TableHub` of the server.

Each app speaks for one :class:`~casino_tui.table.wire.Identity` (its session's secret names
it). A request is turned into the hub's call on behalf of that identity: the
:class:`~casino_tui.table.hub.Person` the hub sees has the identity's player as its id, always
(nothing the app sends can change it), and the display name that came with the request, checked
by the one display-name rule (:func:`casino_tui.names.clean_display_name`).

Frames (JSON objects, see :mod:`casino_tui.table.wire` for the framing and the hello)::

    app -> server  {"type": "call", "id": 7, "op": "take_seat", "name": "Ann",
                    "args": {"table": "9f2c...", "seat": null}}
    server -> app  {"type": "result", "id": 7, "value": 1}
                   {"type": "refused", "id": 7, "reason": "...", "kind": "hub"}
                   ("move": a move the table refuses; "request": a request that breaks the
                   rules below; "hub": anything else the hub refuses)
                   {"type": "part", "id": 7, "items": [...]}  a list too long for one frame
                   comes in parts, then the result with the last items
                   {"type": "event", "sub": 3, "table": "9f2c...", "event": {...},
                    "view": {...}}  the view: with the last of events that change it
                   {"type": "lost", "sub": 3, "table": "9f2c..."}

``id`` is a whole number chosen by the app (answers carry it back); ``name`` is needed by the
calls that show it (:data:`NAMED_OPS`: refused without a valid one, given now or before) and is
kept for the player's later calls; the other calls ignore a name that is not valid. The ops and
their ``args`` are those of :class:`~casino_tui.table.hub.TableHub` (:data:`OPS`); ``table`` is
a table's id, ``config`` a :func:`~casino_tui.table.config.config_to_json`, ``move`` a
:func:`~casino_tui.table.codec.move_to_json`. Values come back as JSON: ``TableInfo.to_json``,
``TableView.to_json``, ``TableEvent.to_json`` (lists of them), numbers or null.
``subscribe`` answers ``{"sub": N, "epoch": "..."}``; from then on the events of that table,
filtered for the person by the hub, come as ``event`` frames with that ``sub``, in order and
without gaps (the last of the events that came together, when any of them changes the table,
has the person's ``TableView.to_json`` after them, so that the app need not ask for a
snapshot), until ``unsubscribe`` (args ``{"sub": N}``) or the connection ends; ``lost``
says the hub stopped it (too many events unread): subscribe again after the last number.

A request that is not an object of this form, names an unknown op, lacks an argument, has one
of the wrong type or one too many is refused (``kind: request``) and the connection goes on;
an error inside the hub is logged and refused, never the end of the server.

Presence: when an identity's connection drops (and no other connection of the same player is
open), the person is marked away at every table they hold a seat at; when the player connects
again they come back at those tables. A client that lost its connection subscribes again after
the last event number it has, so it misses no event (``casino_tui.table.remote`` does). When
the session ends (:meth:`HubService.end_session`) the person also stops watching the tables
they only watched.

Join codes cannot be found by guessing (issue 27): ``find`` and ``join`` go through a
:class:`~casino_tui.table.guard.CodeGuard`. A code no table has counts against the identity's
player and address; past a few free ones, a try that comes before the growing wait is over is
refused at once ("too many wrong codes: wait N s ..."), without looking the code up, and
counted in :attr:`HubService.refused_joins`. A wrong code, and a refused try, are answered no
sooner than :data:`CODE_ANSWER_FLOOR` seconds after they came (nor sooner than the slowest of
the latest right codes), so one connection tries a few codes a second at most, and the time of
an answer says nothing the answer does not.

A browser link (issue 16): when the server has a web front end it installs the function that
mints a one-time link for a player (:meth:`HubService.offer_web`); every welcome then says
``"web": true``, and the op ``web_link`` (no arguments) answers ``{"url": ..., "expires_in":
...}`` for the identity the session's secret names, the only player it can ever be for.
Without a web front end ``web_link`` is refused (``kind: hub``).
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from casino_tui.names import clean_display_name

from . import trace
from .codec import JSON, move_from_json
from .config import DEFAULT_LEVEL, LEVELS, config_from_json
from .controller import MoveRefused
from .events import QUIET_KINDS, TableEvent
from .guard import CodeGuard
from .hub import HubError, Person, Subscription, TableHub, TableInfo, UnknownCode
from .weblink import WebLink
from .wire import FrameError, Identity, Message, WireServer

log = logging.getLogger("casino_tui.table.service")

MAX_SUBSCRIPTIONS = 16  # open subscriptions of one connection
MAX_ID = 2**53 - 1  # call ids: whole numbers every JSON reader keeps exact
MAX_TEXT = 400  # characters of a text argument (a chat line is limited further by the hub)
MAX_TABLE_ID = 64
ANONYMOUS = "?"  # the name of a caller who never sent one, for calls that do not show it
NO_WEB = "this server has no web front end: ask its operator to start it with --web-port"
# A wrong join code (and a try refused for coming too soon) is answered no sooner than this
# many seconds after it came, nor sooner than the slowest of the latest right ones: the answer's
# timing says nothing, and one connection tries at most a few codes a second.
CODE_ANSWER_FLOOR = 0.25
RIGHT_CODE_TIMES = 32  # right answers whose time the floor follows

# Mints a one-time link that signs a browser in as the given player (their id).
LinkMinter = Callable[[str], WebLink]


class BadRequest(Exception):
    """A request that breaks the protocol's rules (refused with ``kind: request``)."""


@dataclass
class _Call:
    """One request being served."""

    identity: Identity
    person: Person
    args: Mapping[str, Any]
    after: list[Callable[[], None]] = field(default_factory=list)  # once the answer is sent

    # ------------------------------------------------------------------ arguments
    def text(self, key: str, limit: int = MAX_TEXT) -> str:
        value = self.args.get(key)
        if not isinstance(value, str) or len(value) > limit:
            raise BadRequest(f"{key} must be text of at most {limit} characters")
        return value

    def table(self) -> str:
        value = self.text("table", MAX_TABLE_ID)
        if not value:
            raise BadRequest("table must be a table's id")
        return value

    def whole(self, key: str, *, optional: bool = False, low: int = 0,
              high: int = MAX_ID) -> int | None:
        value = self.args.get(key)
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise BadRequest(f"{key} must be a whole number from {low} to {high}")
        return value

    def seat(self, *, optional: bool = False) -> int | None:
        return self.whole("seat", optional=optional, high=63)

    def flag(self, key: str, default: bool) -> bool:
        value = self.args.get(key, default)
        if not isinstance(value, bool):
            raise BadRequest(f"{key} must be true or false")
        return value


@dataclass(frozen=True)
class _Op:
    run: Callable[[HubService, _Call], Awaitable[JSON]]
    args: frozenset[str]  # the arguments it accepts
    named: bool  # it shows the caller's name: a display name is needed


@dataclass
class _Feed:
    """One open subscription of a connection: its hub subscription and the task sending it."""

    number: int
    table_id: str
    subscription: Subscription
    person: Person  # whose view goes with the events
    task: asyncio.Task[None] | None = None

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
        self.subscription.close()


class HubService:
    """Serves ``hub`` on the table channel: :meth:`start` on a socket path, :meth:`register`
    each session's secret with its identity, :meth:`end_session` when the session ends,
    :meth:`close` at the end. The hub itself (its restore, idle closing and shutdown) stays
    the caller's."""

    def __init__(self, hub: TableHub, *, max_subscriptions: int = MAX_SUBSCRIPTIONS,
                 **wire_options: Any) -> None:
        self.hub = hub
        self.max_subscriptions = max_subscriptions
        self.wire = WireServer(self._handle, on_connect=self._connected,
                               on_disconnect=self._disconnected, welcome=self._welcome,
                               **wire_options)
        self._mint: LinkMinter | None = None
        self._names: dict[str, str] = {}  # player -> the display name they last sent
        self._tables: dict[str, set[str]] = {}  # player -> the tables they came to
        self._away: dict[str, set[str]] = {}  # player -> tables where a drop made them away
        self._online: dict[str, set[Identity]] = {}  # player -> their connected identities
        self._feeds: dict[Identity, dict[int, _Feed]] = {}
        self._secrets: dict[str, Identity] = {}
        self._numbers = itertools.count(1)
        # player -> the table where they last followed their seat's game or played, and when
        # (the wall clock, comparable with a file's time)
        self._at_table: dict[str, tuple[str, float]] = {}
        self.clock: Callable[[], float] = time.time
        # Join codes cannot be found by guessing: wrong codes are limited per player and per
        # address (the guard), and answered no faster than right ones.
        self.codes = CodeGuard()
        self.code_answer_floor = CODE_ANSWER_FLOOR
        self._right_code_times: collections.deque[float] = collections.deque(
            maxlen=RIGHT_CODE_TIMES)
        self.refused_joins = 0  # tries of a code turned down for coming too soon
        self._refusals_logged: dict[str, float] = {}  # player -> when the log last said so

    # ------------------------------------------------------------------ life
    @property
    def path(self) -> Path | None:
        return self.wire.path

    async def start(self, path: Path) -> None:
        """Listen on ``path`` (:meth:`WireServer.start`; raises WireError)."""
        await self.wire.start(path)

    async def close(self) -> None:
        """Stop every subscription and the channel (the hub is left as it is)."""
        for feeds in self._feeds.values():
            for feed in feeds.values():
                feed.stop()
        self._feeds.clear()
        await self.wire.close()

    def offer_web(self, mint: LinkMinter | None) -> None:
        """The server has a web front end: ``mint(player)`` makes a one-time link for a player
        (None: it has none any more). Apps that connect from now on are told in their
        welcome."""
        self._mint = mint

    def _welcome(self, identity: Identity) -> dict[str, JSON]:
        return {"web": self._mint is not None}

    def last_at_table(self, player: str) -> tuple[str, float] | None:
        """(table id, time) of the last time ``player``'s app opened the game at their seat
        at a table or played a move there (this server's run only), else None. The server
        compares it with the player's latest solo save to know which game they left last."""
        return self._at_table.get(player)

    def register(self, secret: str, identity: Identity) -> None:
        """Admit the app that says ``secret``: it speaks for ``identity``."""
        self.wire.register(secret, identity)
        self._secrets[secret] = identity

    async def end_session(self, secret: str) -> None:
        """The session of ``secret`` ended: its connection is closed, and unless another
        session of the same player is connected, they are away at their seats and stop
        watching the tables they only watched."""
        identity = self._secrets.pop(secret, None)
        self.wire.unregister(secret)
        if identity is None:
            return
        self._stop_feeds(identity)
        self._went(identity)
        if self._online.get(identity.player):
            return
        person = self._person_of(identity.player)
        tables = self._tables.get(identity.player, set())
        for table_id in sorted(tables):
            try:
                seated = (await self.hub.snapshot(table_id, person)).seat is not None
                await self.hub.mark_away(table_id, person)
            except HubError:  # the table closed
                seated = False
            if seated:
                self._away.setdefault(identity.player, set()).add(table_id)
            else:
                tables.discard(table_id)

    # ------------------------------------------------------------------ presence
    def _person_of(self, player: str) -> Person:
        return Person(player, self._names.get(player, ANONYMOUS))

    async def _connected(self, identity: Identity) -> None:
        self._online.setdefault(identity.player, set()).add(identity)
        person = self._person_of(identity.player)
        for table_id in sorted(self._away.pop(identity.player, set())):
            try:
                await self.hub.come_back(table_id, person)
            except HubError as err:  # the table closed, or the seat is no longer theirs
                log.info("table channel: %s could not come back to table %s: %s",
                         identity.player, table_id, err.reason)

    def _went(self, identity: Identity) -> None:
        online = self._online.get(identity.player)
        if online is not None:
            online.discard(identity)
            if not online:
                del self._online[identity.player]

    async def _disconnected(self, identity: Identity) -> None:
        self._stop_feeds(identity)
        self._went(identity)
        if self._online.get(identity.player):
            return  # another session of the same player is here
        person = self._person_of(identity.player)
        for table_id in sorted(self._tables.get(identity.player, ())):
            try:
                if (await self.hub.snapshot(table_id, person)).seat is None:
                    continue  # only watching: they go on watching when they come back
                await self.hub.mark_away(table_id, person)
            except HubError:  # the table closed
                self._tables[identity.player].discard(table_id)
                continue
            self._away.setdefault(identity.player, set()).add(table_id)

    def _stop_feeds(self, identity: Identity) -> None:
        for feed in self._feeds.pop(identity, {}).values():
            feed.stop()

    def _came_to(self, player: str, table_id: str) -> None:
        self._tables.setdefault(player, set()).add(table_id)

    # ------------------------------------------------------------------ requests
    async def _handle(self, identity: Identity, message: Message) -> None:
        raw_id = message.get("id")
        call_id = raw_id if isinstance(raw_id, int) and not isinstance(raw_id, bool) \
            and 0 <= raw_id <= MAX_ID else None
        try:
            if message.get("type") != "call":
                raise BadRequest(f"unknown message type {str(message.get('type'))[:40]!r}")
            if call_id is None:
                raise BadRequest(f"a call needs an id: a whole number from 0 to {MAX_ID}")
            name = message.get("op")
            op = OPS.get(name) if isinstance(name, str) else None
            if op is None:
                raise BadRequest(f"unknown op {str(name)[:40]!r}")
            args = message.get("args", {})
            if not isinstance(args, dict):
                raise BadRequest("args must be an object")
            extra = set(args) - op.args
            if extra:
                raise BadRequest(f"unknown argument {sorted(extra)[0][:40]!r} for {name}")
            call = _Call(identity, self._person(identity, message.get("name"), op.named),
                         args)
            value = await op.run(self, call)
        except BadRequest as err:
            self._refuse(identity, call_id, str(err), "request")
        except MoveRefused as err:
            self._refuse(identity, call_id, err.reason, "move")
        except HubError as err:
            self._refuse(identity, call_id, err.reason, "hub")
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table channel: %s's call %r failed", identity.player,
                          message.get("op"))
            self._refuse(identity, call_id, "the server could not do that (an error on the "
                                            "server; it is in its log)", "hub")
        else:
            self._answer(identity, call_id, value)
            for then in call.after:
                then()

    def _person(self, identity: Identity, name: object, named: bool) -> Person:
        player = identity.player
        if name is not None:
            try:
                if not isinstance(name, str) or len(name) > MAX_TEXT:
                    raise ValueError("name must be text")
                self._names[player] = clean_display_name(name)
            except ValueError as err:
                if named:  # a call that does not show the name goes on without it
                    raise BadRequest(str(err)) from None
        if named and player not in self._names:
            raise BadRequest("choose a display name first")
        return self._person_of(player)

    def _refuse(self, identity: Identity, call_id: int | None, reason: str, kind: str) -> None:
        self.wire.send(identity, {"type": "refused", "id": call_id, "reason": reason,
                                  "kind": kind})

    def _answer(self, identity: Identity, call_id: int | None, value: JSON) -> None:
        try:
            self.wire.send(identity, {"type": "result", "id": call_id, "value": value})
            return
        except FrameError:
            if not isinstance(value, list):
                log.warning("table channel: an answer too large for a frame (%s)",
                            identity.player)
                self._refuse(identity, call_id, "the answer is too large", "hub")
                return
        part: list[JSON] = []
        size, limit = 0, self.wire.max_frame // 2  # bytes of items in one part, at most
        for item in value:
            n = len(json.dumps(item, ensure_ascii=False, separators=(",", ":")).encode()) + 1
            if part and size + n > limit:
                self.wire.send(identity, {"type": "part", "id": call_id, "items": part})
                part, size = [], 0
            part.append(item)
            size += n
        try:
            self.wire.send(identity, {"type": "result", "id": call_id, "value": part})
        except FrameError:
            self._refuse(identity, call_id, "the answer is too large", "hub")

    # ------------------------------------------------------------------ subscriptions
    async def _pump(self, identity: Identity, feed: _Feed) -> None:
        """Send the subscription's events to the connection as they come."""
        sub = feed.subscription
        try:
            while True:
                if not await self._push_all(identity, feed, sub.ready()):
                    return
                if sub.lost:
                    self.wire.send(identity, {"type": "lost", "sub": feed.number,
                                              "table": feed.table_id})
                    return
                try:
                    first = await sub.next()
                except HubError:
                    if not sub.lost:
                        raise
                    continue  # lost while waiting (a hub over a store): say so above
                if not await self._push_all(identity, feed, [first, *sub.ready()]):
                    return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table channel: the events of table %s for %s stopped",
                          feed.table_id, identity.player)
        finally:
            sub.close()
            feeds = self._feeds.get(identity)
            if feeds is not None and feeds.get(feed.number) is feed:
                del feeds[feed.number]

    async def _push_all(self, identity: Identity, feed: _Feed,
                        events: list[TableEvent]) -> bool:
        """Send ``events``, the last with the person's view after them when any changes the
        table; False when the connection is gone."""
        view: JSON = None
        if any(e.kind not in QUIET_KINDS for e in events):
            try:
                table_view = await self.hub.snapshot(feed.table_id, feed.person)
            except HubError:  # the table is gone, or no longer shown to them: no view
                table_view = None
            if table_view is not None and table_view.number == events[-1].number:
                view = table_view.to_json()
        for i, event in enumerate(events):
            last = i == len(events) - 1
            if not self._push(identity, feed, event.to_json(), view if last else None):
                return False
        if trace.enabled() and events:
            trace.note("server-pushed", feed.table_id, events[0].number,
                       upto=events[-1].number, to=feed.person.name)
        return True

    def _push(self, identity: Identity, feed: _Feed, event: JSON, view: JSON = None) -> bool:
        message: dict[str, JSON] = {"type": "event", "sub": feed.number,
                                    "table": feed.table_id, "event": event}
        if view is not None:
            message["view"] = view
        try:
            return self.wire.send(identity, message)
        except FrameError:  # pragma: no cover - an event is far smaller than a frame
            log.exception("table channel: an event too large for a frame")
            return True

    # ------------------------------------------------------------------ the ops
    async def _create_table(self, call: _Call) -> JSON:
        try:
            config = config_from_json(call.args.get("config"))
        except ValueError as err:
            raise BadRequest(str(err)) from None
        info = await self.hub.create_table(config, call.person,
                                           public=call.flag("public", True))
        self._came_to(call.identity.player, info.table_id)
        return info.to_json()

    async def _list_tables(self, call: _Call) -> JSON:
        return [t.to_json() for t in await self.hub.list_tables(call.person)]

    async def _find(self, call: _Call) -> JSON:
        code = call.text("code", 40)
        return (await self._by_code(call, code, lambda: self.hub.find(code))).to_json()

    async def _join(self, call: _Call) -> JSON:
        code = call.text("code", 40)
        info = await self._by_code(call, code, lambda: self.hub.join(code, call.person))
        self._came_to(call.identity.player, info.table_id)
        return info.to_json()

    async def _by_code(self, call: _Call, code: str,
                       look_up: Callable[[], Awaitable[TableInfo]]) -> TableInfo:
        """A table looked up by a code the caller typed, under the guard: a try too soon after
        the caller's (or their address's) wrong codes is refused whatever the code, and a
        wrong code is counted; both are answered no faster than a right code. The code of a
        table the player already came to is theirs to use (the waiting room looks its table
        up by its code after every event): it is answered at once, guard or not."""
        identity = call.identity
        began = time.monotonic()
        known = self._tables.get(identity.player)
        if known:
            try:
                mine = (await self.hub.find(code)).table_id in known
            except HubError:
                mine = False
            if mine:
                return await look_up()
        wait = self.codes.check(identity.player, identity.address)
        if wait:
            self.refused_joins += 1
            self._log_refusal(identity, wait)
            await self._hold_answer(began)
            raise HubError(f"too many wrong codes: wait {wait} s before trying another "
                           f"(each wrong code makes the wait longer)")
        try:
            info = await look_up()
        except UnknownCode:
            self.codes.failed(identity.player, identity.address)
            log.info("table channel: %s (session %d, address %s) tried a code no table has",
                     identity.player, identity.session, identity.address or "?")
            await self._hold_answer(began)
            raise
        self._right_code_times.append(time.monotonic() - began)
        return info

    async def _hold_answer(self, began: float) -> None:
        """Wait until a right code would have been answered (at the earliest the floor)."""
        hold = max(self.code_answer_floor, max(self._right_code_times, default=0.0))
        left = began + hold - time.monotonic()
        if left > 0:
            await asyncio.sleep(left)

    def _log_refusal(self, identity: Identity, wait: int) -> None:
        now = time.monotonic()
        if now - self._refusals_logged.get(identity.player, -1e9) < 60:
            return  # at most one line a minute per player
        if len(self._refusals_logged) > 10_000:
            self._refusals_logged.clear()
        self._refusals_logged[identity.player] = now
        log.warning("table channel: %s (session %d, address %s) tries join codes too fast: "
                    "refused, to wait %d s (%d tries refused so far on this server)",
                    identity.player, identity.session, identity.address or "?", wait,
                    self.refused_joins)

    async def _take_seat(self, call: _Call) -> JSON:
        table = call.table()
        seat = await self.hub.take_seat(table, call.person, call.seat(optional=True))
        self._came_to(call.identity.player, table)
        return seat

    async def _start(self, call: _Call) -> JSON:
        await self.hub.start(call.table(), call.person)
        return None

    async def _leave(self, call: _Call) -> JSON:
        table = call.table()
        await self.hub.leave(table, call.person)
        return None

    async def _mark_away(self, call: _Call) -> JSON:
        await self.hub.mark_away(call.table(), call.person)
        return None

    async def _come_back(self, call: _Call) -> JSON:
        table = call.table()
        seat = await self.hub.come_back(table, call.person)
        self._came_to(call.identity.player, table)
        return seat

    async def _hand_to_computer(self, call: _Call) -> JSON:
        level = call.args.get("level", DEFAULT_LEVEL)
        if level not in LEVELS:
            raise BadRequest(f"level must be one of {', '.join(LEVELS)}")
        await self.hub.hand_to_computer(call.table(), call.person, call.seat() or 0,
                                        str(level))
        return None

    async def _give_back(self, call: _Call) -> JSON:
        await self.hub.give_back(call.table(), call.person, call.seat() or 0)
        return None

    async def _new_game(self, call: _Call) -> JSON:
        await self.hub.new_game(call.table(), call.person)
        return None

    async def _spectate(self, call: _Call) -> JSON:
        table = call.table()
        view = await self.hub.spectate(table, call.person)
        self._came_to(call.identity.player, table)
        return view.to_json()

    async def _chat(self, call: _Call) -> JSON:
        return (await self.hub.chat(call.table(), call.person, call.text("text"))).to_json()

    async def _submit_move(self, call: _Call) -> JSON:
        table, seat = call.table(), call.seat() or 0
        try:
            move = move_from_json(call.args.get("move"))
        except ValueError as err:
            raise BadRequest(f"move: {err}") from None
        if trace.enabled():
            trace.note("server-call", table, -1, who=call.person.name)
        events = await self.hub.submit_move(table, call.person, seat, move)
        if trace.enabled() and events:
            trace.note("server-played", table, events[0].number, who=call.person.name)
        self._at_table[call.identity.player] = (table, self.clock())
        return [e.to_json() for e in events]

    async def _next_round(self, call: _Call) -> JSON:
        await self.hub.next_round(call.table(), call.person)
        return None

    async def _snapshot(self, call: _Call) -> JSON:
        return (await self.hub.snapshot(call.table(), call.person)).to_json()

    async def _events_after(self, call: _Call) -> JSON:
        number = call.whole("number") or 0
        events = await self.hub.events_after(call.table(), call.person, number)
        return [e.to_json() for e in events]

    async def _subscribe(self, call: _Call) -> JSON:
        table, after = call.table(), call.whole("after") or 0
        feeds = self._feeds.setdefault(call.identity, {})
        if len(feeds) >= self.max_subscriptions:
            raise BadRequest(f"at most {self.max_subscriptions} subscriptions at once")
        view = await self.hub.snapshot(table, call.person)
        epoch = view.epoch
        sub = await self.hub.subscribe(table, call.person, after)
        if view.seat is not None:
            self._at_table[call.identity.player] = (table, self.clock())
        if not self.wire.connected(call.identity):  # gone meanwhile
            sub.close()
            raise HubError("the connection ended")
        feed = _Feed(next(self._numbers), table, sub, call.person)
        feeds[feed.number] = feed
        self._came_to(call.identity.player, table)

        def begin() -> None:  # after the answer: its events follow it on the connection
            if self._feeds.get(call.identity) is feeds and feeds.get(feed.number) is feed:
                feed.task = asyncio.get_running_loop().create_task(
                    self._pump(call.identity, feed))
            else:
                sub.close()

        call.after.append(begin)
        return {"sub": feed.number, "epoch": epoch}

    async def _web_link(self, call: _Call) -> JSON:
        mint = self._mint
        if mint is None:
            raise HubError(NO_WEB)
        link = mint(call.identity.player)  # the secret's player, whatever the app says
        log.info("table channel: a one-time browser link for %s (session %d)",
                 call.identity.player, call.identity.session)
        return link.to_json()

    async def _unsubscribe(self, call: _Call) -> JSON:
        number = call.whole("sub")
        feed = self._feeds.get(call.identity, {}).pop(number or 0, None)
        if feed is not None:
            feed.stop()
        return None


def _op(run: Callable[[HubService, _Call], Awaitable[JSON]], *args: str,
        named: bool = False) -> _Op:
    return _Op(run, frozenset(args), named)


# The ops an app may call, the arguments each takes, and whether it shows the caller's name.
OPS: dict[str, _Op] = {
    "create_table": _op(HubService._create_table, "config", "public", named=True),
    "list_tables": _op(HubService._list_tables),
    "find": _op(HubService._find, "code"),
    "join": _op(HubService._join, "code", named=True),
    "take_seat": _op(HubService._take_seat, "table", "seat", named=True),
    "start": _op(HubService._start, "table"),
    "leave": _op(HubService._leave, "table", named=True),
    "mark_away": _op(HubService._mark_away, "table"),
    "come_back": _op(HubService._come_back, "table"),
    "hand_to_computer": _op(HubService._hand_to_computer, "table", "seat", "level"),
    "give_back": _op(HubService._give_back, "table", "seat"),
    "new_game": _op(HubService._new_game, "table"),
    "spectate": _op(HubService._spectate, "table", named=True),
    "chat": _op(HubService._chat, "table", "text", named=True),
    "submit_move": _op(HubService._submit_move, "table", "seat", "move"),
    "next_round": _op(HubService._next_round, "table"),
    "snapshot": _op(HubService._snapshot, "table"),
    "events_after": _op(HubService._events_after, "table", "number"),
    "subscribe": _op(HubService._subscribe, "table", "after"),
    "unsubscribe": _op(HubService._unsubscribe, "sub"),
    "web_link": _op(HubService._web_link),
}
NAMED_OPS = frozenset(name for name, op in OPS.items() if op.named)
