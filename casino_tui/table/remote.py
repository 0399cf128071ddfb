"""The tables of the server, from a player's app process: :class:`RemoteHub`, a
:class:`~casino_tui.table.hub.TableHub` over the table channel.

Every method sends one call to the server's :mod:`~casino_tui.table.service` and waits for its
answer; refusals raise :class:`~casino_tui.table.hub.HubError` (a move:
:class:`~casino_tui.table.controller.MoveRefused`), as with the in-process hub. The ``person``
argument's display name is sent with each call; its id is not: the server knows who the
channel speaks for (:attr:`RemoteHub.player`, from its welcome).

Subscriptions are fed by the events the server pushes. When the channel drops, the hub
connects again with the same secret (the server marks the person away meanwhile and back when
they return), and subscribes again after the last event number each subscription has, so no
event is lost or repeated. Calls under way when it dropped are refused ("the connection to the
server dropped"): the caller may look at the table again and retry. When the server cannot be
reached any more (the session ended, the server stopped) every call is refused and every
subscription is lost.

An app makes one RemoteHub (a second connection with the same secret replaces the first, which
would then connect again in turn).

    hub = await hub_from_environment(os.environ)   # None: no tables here
    if hub is not None:
        info = await hub.join("KAMIRO", Person(hub.player, "Ann"))
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from casino_tui.engine import Move

from . import trace
from .codec import JSON, move_to_json
from .config import DEFAULT_LEVEL, GameConfig, config_to_json
from .controller import MoveRefused
from .events import TableEvent, TableView
from .hub import EventFeed, HubError, Person, TableInfo
from .weblink import WebLink
from .wire import FrameError, Message, Refused, WireClient, WireError, link_from_environment

log = logging.getLogger("casino_tui.table.remote")

CALL_TIMEOUT = 30.0  # seconds to wait for the server's answer
RECONNECT_ATTEMPTS = 6
RECONNECT_DELAY = 0.1  # seconds before the second attempt, doubled after each failure
DROPPED = "the connection to the server dropped: look at the table again and retry"
UNREACHABLE = "the server's tables cannot be reached"


class ConnectionLost(HubError):
    """The call could not be answered: the channel dropped (``final``: for good)."""

    def __init__(self, reason: str, final: bool = False) -> None:
        super().__init__(reason)
        self.final = final


@dataclass
class _Pending:
    future: asyncio.Future[JSON]
    parts: list[JSON] = field(default_factory=list)
    on_result: Callable[[JSON], None] | None = None  # run by the reader, before anything else


class RemoteSubscription(EventFeed):
    """A :class:`~casino_tui.table.hub.Subscription` fed by the server's pushed events.

    ``last``: the number of the last event received (the next subscription after a drop
    starts after it). :meth:`next` raises :class:`HubError` once the subscription is
    :attr:`lost` and no event waits (take a fresh snapshot and subscribe again), or when the
    server can no longer be reached."""

    def __init__(self, hub: RemoteHub, table_id: str, name: str, after: int,
                 epoch: str) -> None:
        super().__init__(after)
        self._hub = hub
        self.table_id = table_id
        self.name = name
        self.epoch = epoch
        self.number: int | None = None  # the server's number of the subscription

    def _release(self) -> None:
        self._hub._unsubscribe(self)


class RemoteHub:
    """A :class:`~casino_tui.table.hub.TableHub` in the server, reached over ``client`` (a
    connected :class:`~casino_tui.table.wire.WireClient`). Call :meth:`close` at the end.

    ``on_reconnect``: functions called after the channel came back (the subscriptions are
    already following again; a screen may want a fresh snapshot)."""

    def __init__(self, client: WireClient, *, call_timeout: float = CALL_TIMEOUT,
                 reconnect_attempts: int = RECONNECT_ATTEMPTS,
                 reconnect_delay: float = RECONNECT_DELAY) -> None:
        self._client = client
        self.call_timeout = call_timeout
        self.reconnect_attempts = reconnect_attempts
        self.reconnect_delay = reconnect_delay
        self.on_reconnect: list[Callable[[], None]] = []
        self.reconnections = 0
        self.closed = False
        self.reason = ""
        self._ids = itertools.count(1)
        self._calls: dict[int, _Pending] = {}
        self._subs: dict[int, RemoteSubscription] = {}  # by the server's number
        self._all: list[RemoteSubscription] = []
        self._online = asyncio.Event()
        self._online.set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @property
    def player(self) -> str:
        """The player id the server says this channel speaks for."""
        return self._client.player

    @property
    def connected(self) -> bool:
        return self._online.is_set() and not self.closed

    @property
    def offers_web(self) -> bool:
        """The server has a web front end: :meth:`web_link` makes a link for a browser."""
        return self._client.welcome.get("web") is True

    async def web_link(self) -> WebLink:
        """A one-time link that signs a browser in as this channel's player (the server
        decides whose: the secret's). Raises :class:`HubError` (no web front end here)."""
        value = await self._call("web_link", {})
        try:
            return WebLink.from_json(value)
        except ValueError as err:
            raise _damaged(err) from None

    async def close(self) -> None:
        """Close the channel (the server marks the person away at their seats)."""
        self._end("the tables were closed")
        self._reader.cancel()
        for task in list(self._tasks):
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._reader
        await self._client.close()

    # ------------------------------------------------------------------ calls
    async def _call(self, op: str, args: dict[str, JSON], name: str | None = None,
                    on_result: Callable[[JSON], None] | None = None) -> JSON:
        if self.closed:
            raise ConnectionLost(self.reason or UNREACHABLE, final=True)
        if not self._online.is_set():
            try:
                await asyncio.wait_for(self._online.wait(), self.call_timeout)
            except TimeoutError:
                raise ConnectionLost(UNREACHABLE) from None
            if self.closed:
                raise ConnectionLost(self.reason or UNREACHABLE, final=True)
        number = next(self._ids)
        future: asyncio.Future[JSON] = asyncio.get_running_loop().create_future()
        self._calls[number] = _Pending(future, on_result=on_result)
        message: dict[str, JSON] = {"type": "call", "id": number, "op": op, "args": args}
        if name is not None:
            message["name"] = name
        try:
            await self._client.send(message)
            return await asyncio.wait_for(future, self.call_timeout)
        except FrameError as err:
            raise HubError(f"that cannot be sent: {err}") from None
        except (ConnectionError, OSError):
            raise ConnectionLost(DROPPED) from None
        except TimeoutError:
            raise ConnectionLost("the server did not answer in time") from None
        finally:
            self._calls.pop(number, None)

    async def _read(self) -> None:
        while not self.closed:
            try:
                message = await self._client.receive()
            except FrameError as err:
                log.warning("table channel: %s", err)
                message = None
            if message is None:
                if self.closed or not await self._reconnect():
                    return
                continue
            try:
                self._dispatch(message)
            except Exception:  # one odd frame must not stop the reader
                log.exception("table channel: a frame could not be read: %.200r", message)

    def _dispatch(self, message: Message) -> None:
        kind = message.get("type")
        sub_number, call_number = message.get("sub"), message.get("id")
        if kind == "event":
            sub = self._subs.get(sub_number) if isinstance(sub_number, int) else None
            if sub is not None:
                view = message.get("view")
                event = TableEvent.from_json(message.get("event"))
                if trace.enabled():
                    trace.note("recv", sub.table_id, event.number, who=sub.name)
                sub.deliver(event, None if view is None else TableView.from_json(view))
            return
        if kind == "lost":
            sub = self._subs.pop(sub_number, None) if isinstance(sub_number, int) else None
            if sub is not None:
                self._spawn(self._resubscribe(sub))
            return
        pending = self._calls.get(call_number) if isinstance(call_number, int) else None
        if pending is None:
            if kind in ("refused", "error"):
                log.warning("table channel: the server said %.200r", message)
            return
        if kind == "part":
            items = message.get("items")
            if isinstance(items, list):
                pending.parts.extend(items)
            return
        if pending.future.done():
            return
        if kind == "result":
            value = message.get("value")
            if pending.parts:
                value = [*pending.parts, *(value if isinstance(value, list) else [])]
            if pending.on_result is not None:
                pending.on_result(value)
            pending.future.set_result(value)
        elif kind == "refused":
            reason = str(message.get("reason") or "refused")
            error = MoveRefused(reason) if message.get("kind") == "move" else HubError(reason)
            pending.future.set_exception(error)

    # ------------------------------------------------------------------ dropped connections
    async def _reconnect(self) -> bool:
        """The channel ended: refuse the calls under way, connect again and follow every
        subscription again from its last event. False when the server cannot be reached."""
        self._online.clear()
        self._fail_calls(ConnectionLost(DROPPED))
        self._subs.clear()
        try:
            await self._client.reconnect(attempts=self.reconnect_attempts,
                                         delay=self.reconnect_delay)
        except asyncio.CancelledError:
            raise
        except (WireError, OSError, TimeoutError) as err:  # Refused: the session ended
            log.warning("table channel: cannot connect again: %s", err)
            self._end(f"{UNREACHABLE} ({err})")
            return False
        self.reconnections += 1
        self._online.set()
        self._spawn(self._follow_again())
        return True

    async def _follow_again(self) -> None:
        for sub in list(self._all):
            if sub.number is not None:  # (one still being made is made after the drop)
                await self._resubscribe(sub)
        for then in list(self.on_reconnect):
            try:
                then()
            except Exception:
                log.exception("table channel: an on_reconnect function failed")

    async def _resubscribe(self, sub: RemoteSubscription) -> None:
        if sub.closed or sub.lost:
            return
        try:
            await self._subscribe_call(sub)
        except HubError as err:
            if isinstance(err, ConnectionLost) and not err.final:
                return  # dropped again: the next reconnection follows it again
            sub.stop(err.reason)

    async def _subscribe_call(self, sub: RemoteSubscription) -> None:
        def follow(value: JSON) -> None:  # in the reader: before the first event arrives
            if not isinstance(value, dict) or not isinstance(value.get("sub"), int):
                return
            if sub.epoch and value.get("epoch") != sub.epoch:
                sub.stop("the table was restored with new event numbers: take a fresh "
                         "snapshot and subscribe again")
                return
            sub.epoch = str(value.get("epoch", ""))
            sub.number = value["sub"]
            if not sub.closed:
                self._subs[value["sub"]] = sub
            else:  # closed while it was being made
                self._spawn(self._quietly("unsubscribe", {"sub": value["sub"]}))

        await self._call("subscribe", {"table": sub.table_id, "after": sub.last}, sub.name,
                         on_result=follow)

    def _fail_calls(self, error: HubError) -> None:
        for pending in self._calls.values():
            if not pending.future.done():
                pending.future.set_exception(error)

    def _end(self, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        self.reason = reason
        self._online.set()  # wake the callers waiting for a reconnection
        self._fail_calls(ConnectionLost(reason, final=True))
        for sub in self._all:
            sub.stop(reason)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _unsubscribe(self, sub: RemoteSubscription) -> None:
        with contextlib.suppress(ValueError):
            self._all.remove(sub)
        if sub.number is not None and self._subs.get(sub.number) is sub:
            del self._subs[sub.number]
            if not self.closed:
                self._spawn(self._quietly("unsubscribe", {"sub": sub.number}))

    async def _quietly(self, op: str, args: dict[str, JSON]) -> None:
        with contextlib.suppress(HubError):
            await self._call(op, args)

    # ------------------------------------------------------------------ the TableHub
    async def create_table(self, config: GameConfig, creator: Person, *,
                           public: bool = True) -> TableInfo:
        return _info(await self._call("create_table", {"config": config_to_json(config),
                                                       "public": public}, creator.name))

    async def list_tables(self, person: Person) -> list[TableInfo]:
        return [_info(t) for t in _list(await self._call("list_tables", {}, person.name))]

    async def find(self, code: str) -> TableInfo:
        return _info(await self._call("find", {"code": code}))

    async def join(self, code: str, person: Person) -> TableInfo:
        return _info(await self._call("join", {"code": code}, person.name))

    async def take_seat(self, table_id: str, person: Person, seat: int | None = None) -> int:
        return _int(await self._call("take_seat", {"table": table_id, "seat": seat},
                                     person.name))

    async def start(self, table_id: str, person: Person) -> None:
        await self._call("start", {"table": table_id}, person.name)

    async def leave(self, table_id: str, person: Person) -> None:
        await self._call("leave", {"table": table_id}, person.name)

    async def mark_away(self, table_id: str, person: Person) -> None:
        await self._call("mark_away", {"table": table_id}, person.name)

    async def come_back(self, table_id: str, person: Person) -> int:
        return _int(await self._call("come_back", {"table": table_id}, person.name))

    async def hand_to_computer(self, table_id: str, person: Person, seat: int,
                               level: str = DEFAULT_LEVEL) -> None:
        await self._call("hand_to_computer", {"table": table_id, "seat": seat,
                                              "level": level}, person.name)

    async def give_back(self, table_id: str, person: Person, seat: int) -> None:
        await self._call("give_back", {"table": table_id, "seat": seat}, person.name)

    async def new_game(self, table_id: str, person: Person) -> None:
        await self._call("new_game", {"table": table_id}, person.name)

    async def spectate(self, table_id: str, person: Person) -> TableView:
        return _view(await self._call("spectate", {"table": table_id}, person.name))

    async def chat(self, table_id: str, person: Person, text: str) -> TableEvent:
        return _event(await self._call("chat", {"table": table_id, "text": text},
                                       person.name))

    async def submit_move(self, table_id: str, person: Person, seat: int,
                          move: Move) -> list[TableEvent]:
        if trace.enabled():
            trace.note("send", table_id, -1, who=person.name)
        value = await self._call("submit_move", {"table": table_id, "seat": seat,
                                                 "move": move_to_json(move)}, person.name)
        events = [_event(e) for e in _list(value)]
        if trace.enabled() and events:
            trace.note("answer", table_id, events[0].number, who=person.name)
        return events

    async def next_round(self, table_id: str, person: Person) -> None:
        await self._call("next_round", {"table": table_id}, person.name)

    async def snapshot(self, table_id: str, person: Person) -> TableView:
        return _view(await self._call("snapshot", {"table": table_id}, person.name))

    async def events_after(self, table_id: str, person: Person,
                           number: int) -> list[TableEvent]:
        value = await self._call("events_after", {"table": table_id, "number": max(0, number)},
                                 person.name)
        return [_event(e) for e in _list(value)]

    async def subscribe(self, table_id: str, person: Person,
                        after: int) -> RemoteSubscription:
        sub = RemoteSubscription(self, table_id, person.name, max(0, after), "")
        self._all.append(sub)
        try:
            await self._subscribe_call(sub)
        except BaseException:
            with contextlib.suppress(ValueError):
                self._all.remove(sub)
            raise
        return sub


# ---------------------------------------------------------------------- answers
def _damaged(err: Exception) -> HubError:
    return HubError(f"the server's answer could not be read ({err})")


def _info(value: JSON) -> TableInfo:
    try:
        return TableInfo.from_json(value)
    except ValueError as err:
        raise _damaged(err) from None


def _view(value: JSON) -> TableView:
    try:
        return TableView.from_json(value)
    except ValueError as err:
        raise _damaged(err) from None


def _event(value: JSON) -> TableEvent:
    try:
        return TableEvent.from_json(value)
    except ValueError as err:
        raise _damaged(err) from None


def _list(value: JSON) -> list[JSON]:
    if not isinstance(value, list):
        raise _damaged(ValueError("a list was expected"))
    return value


def _int(value: JSON) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _damaged(ValueError("a whole number was expected"))
    return value


# ---------------------------------------------------------------------- the app's start
CONNECT_TIMEOUT = 5.0  # seconds for the first try to reach the tables
CONNECT_TIMEOUT_MAX = 40.0  # each try waits twice as long as the one before, up to this
CONNECT_TRIES = 5  # 5 + 10 + 20 + 40 + 40 s: two minutes before giving up


async def hub_from_environment(env: Mapping[str, str] | None = None, *,
                               timeout: float = CONNECT_TIMEOUT,
                               tries: int = CONNECT_TRIES,
                               on_wait: Callable[[int, float], None] | None = None,
                               ) -> RemoteHub | None:
    """The server's tables for an app started by ``casino-tui serve`` (its environment names
    the table channel: :func:`~casino_tui.table.wire.link_from_environment`), else None.

    A server too busy to answer within ``timeout`` seconds (a crowd logging in at once) is
    tried again, each try waiting twice as long (up to :data:`CONNECT_TIMEOUT_MAX`), ``tries``
    times in all; ``on_wait(try, seconds waited so far)`` is called before each new try (the
    app tells the player it is waiting), and the hello of a later try says how many there were
    (the server's log says that a busy moment made a game wait). Raises :class:`HubError` when
    the environment names a channel that cannot be used (the server stopped, the secret is no
    longer valid) or the tries are spent."""
    link = link_from_environment(os.environ if env is None else env)
    if link is None:
        return None
    path, secret = link
    loop = asyncio.get_running_loop()
    began = loop.time()
    wait = timeout
    for attempt in range(1, max(1, tries) + 1):
        note = {} if attempt == 1 else {"tries": attempt,
                                         "waited": round(loop.time() - began, 1)}
        try:
            client = await WireClient.connect(path, secret, timeout=wait, note=note)
        except Refused as err:
            raise HubError(f"{UNREACHABLE}: {err}") from None
        except (TimeoutError, ConnectionRefusedError, BlockingIOError) as err:
            # busy: no answer in time, or its queue of new connections full
            if attempt >= tries:
                raise HubError(f"{UNREACHABLE} ({err.__class__.__name__}: {err})") from None
            if on_wait is not None:
                on_wait(attempt + 1, loop.time() - began)
            log.info("table channel: no answer from the server in %.0fs; trying again", wait)
            if not isinstance(err, TimeoutError):
                await asyncio.sleep(min(wait, 1.0))
            wait = min(wait * 2, CONNECT_TIMEOUT_MAX)
            continue
        except OSError as err:
            raise HubError(f"{UNREACHABLE} ({err.__class__.__name__}: {err})") from None
        client.note = {}  # a reconnection later is a first try again
        return RemoteHub(client)
    raise HubError(UNREACHABLE)  # pragma: no cover - the loop returns or raises
