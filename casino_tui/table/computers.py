"""The computer players' channel: every session's app asks the server's one pool of computers.

``casino-tui serve`` owns one :class:`~casino_tui.ai.pool.ComputerPool` (worker processes
sized to the host's cores) for every session's computers; the tables use it in the server's
process, and each session's app reaches it over a Unix socket, ``DATA/computers/pool.sock`` in
a directory of mode 0700, with a secret of its own (:func:`computers_environment`:
:data:`SOCKET_ENV` and :data:`SECRET_ENV` in the app's environment, never on its command line).
An app with these variables asks the pool (:class:`ComputerClient`) and starts no worker
process of its own; without them (a game on the player's own machine) it keeps its own worker.

The frames are the table channel's (:mod:`casino_tui.table.wire`: a hello with the secret, then
JSON objects)::

    app -> server  {"type": "think", "id": N, "op": "choose", "view": VIEW, "level": L,
                    "seed": S, "budget": SECONDS | null}
                   {"type": "think", "id": N, "op": "hint", "view": VIEW, "seed": S, "budget": B}
                   {"type": "think", "id": N, "op": "review", "view": VIEW, "played": MOVE,
                    "seed": S, "budget": B}
    app -> server  {"type": "cancel", "id": N}     the app no longer waits for request N
    server -> app  {"type": "answer", "id": N, "move": MOVE}              (choose)
                   {"type": "answer", "id": N, "move": MOVE, "why": TEXT} (hint)
                   {"type": "answer", "id": N, "estimate": {...}}       (review)
                   {"type": "refused", "id": N, "reason": TEXT, "kind": K}

``VIEW`` is exactly what the seat may know (:func:`seat_view_to_json`: every field of the
engine's :class:`~casino_tui.engine.SeatView`, its own hand and no other), so a hidden card of
another seat never leaves the app, as with the local worker. ``kind`` of a refusal: ``busy``
(over :data:`MAX_IN_FLIGHT` requests of this session at once), ``request`` (not a valid
request; after :data:`MAX_STRIKES` of them the connection is cut off), ``pool`` (the pool could
not answer: a crashed process, the pool stopping). A request has at most :data:`MAX_REQUEST`
bytes. When a session ends (or its connection drops) its waiting requests are dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from casino_tui.engine import Move, Phase, Rules, SeatView

from . import wire
from .codec import (
    JSON,
    card_from_json,
    card_to_json,
    cards_from_json,
    cards_to_json,
    move_from_json,
    move_to_json,
    piles_from_json,
    piles_to_json,
)
from .wire import FrameError, Identity, Message, Refused, WireClient, WireError, WireServer

if TYPE_CHECKING:  # pragma: no cover
    from casino_tui.ai.pool import ComputerPool
    from casino_tui.ai.review import Estimate

log = logging.getLogger("casino_tui.table.computers")

SOCKET_ENV = "CASINO_TUI_COMPUTERS_SOCKET"  # the app's environment: where the pool listens
SECRET_ENV = "CASINO_TUI_COMPUTERS_SECRET"  # and its session's secret
SOCKET_DIR = "computers"  # in the server's data directory, mode 0700
SOCKET_NAME = "pool.sock"
MAX_REQUEST = 32 * 1024  # bytes of one frame (a view is about 1-2 KiB)
MAX_IN_FLIGHT = 2  # requests of one session waiting or being computed at once
MAX_STRIKES = 3  # requests that are not valid before the connection is cut off
MIN_BUDGET, MAX_BUDGET = 0.05, 2.0  # seconds a request may ask for
ANSWER_SLACK = 5.0  # seconds past its budget an app waits for an answer
LEVELS = ("random", "easy", "medium", "hard")  # the levels players choose from
UNREACHABLE = "the server's computer players cannot be reached"


class ComputerError(Exception):
    """The server's computer players did not answer (the message says why, in a player's
    words): the app plays a random move and says so, or shows no hint."""


def socket_path(data_dir: Path) -> Path:
    """Where a server with this data directory listens."""
    return wire.socket_path(data_dir, SOCKET_DIR, SOCKET_NAME)


def computers_environment(path: Path, secret: str) -> dict[str, str]:
    """The variables a session's app needs to reach the pool (add them to its environment)."""
    return wire.session_environment(path, secret, (SOCKET_ENV, SECRET_ENV))


def link_from_environment(env: Mapping[str, str]) -> tuple[Path, str] | None:
    """(socket, secret) when the app runs under a server with a pool, else None."""
    return wire.link_from_environment(env, (SOCKET_ENV, SECRET_ENV))


# ---------------------------------------------------------------------- views as JSON
def seat_view_to_json(view: SeatView) -> dict[str, JSON]:
    """Every field of a seat's view: what that seat may know, nothing more."""
    return {
        "rules": view.rules.to_dict(), "seat": view.seat, "num_players": view.num_players,
        "sides": [list(s) for s in view.sides], "hand": cards_to_json(view.hand),
        "table": piles_to_json(view.table),
        "captured": [cards_to_json(c) for c in view.captured],
        "hand_sizes": list(view.hand_sizes), "stock_size": view.stock_size,
        "scores": list(view.scores), "sweeps": list(view.sweeps), "dealer": view.dealer,
        "to_move": view.to_move, "phase": view.phase.value,
        "last_capturer": view.last_capturer, "is_last_deal": view.is_last_deal,
        "deal_no": view.deal_no, "round": view.round_no,
        "pluck_used": list(view.pluck_used), "target": view.target,
        "unassigned": cards_to_json(view.unassigned),
        "played_card": None if view.played_card is None else card_to_json(view.played_card),
        "deal_table": piles_to_json(view.deal_table),
        "deal_plays": [move_to_json(m) for m in view.deal_plays],
    }


def _whole(value: object, what: str, low: int = 0, high: int = 10_000) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{what}: not a whole number from {low} to {high}")
    return value


def _opt_whole(value: object, what: str, high: int) -> int | None:
    return None if value is None else _whole(value, what, 0, high)


def _ints(value: object, what: str, count: int | None, low: int = -10_000) -> tuple[int, ...]:
    """A list of ``count`` whole numbers (None: one per seat or per side, at most eight)."""
    if not isinstance(value, list) or (len(value) != count if count is not None
                                       else not 1 <= len(value) <= 8):
        raise ValueError(f"{what}: a list of {count or 'a few'} numbers")
    return tuple(_whole(x, what, low) for x in value)


def seat_view_from_json(value: object) -> SeatView:
    """The view :func:`seat_view_to_json` wrote, checked: the seat is to move, the lists fit
    the number of players, no card is seen twice. Raises ValueError on anything else."""
    if not isinstance(value, Mapping):
        raise ValueError("a view must be an object")
    v: Mapping[str, Any] = value
    try:
        raw_rules = v["rules"]
        if not isinstance(raw_rules, dict):
            raise ValueError("rules must be an object")
        rules = Rules.from_dict(dict(raw_rules))
        n = _whole(v["num_players"], "num_players", 2, 8)
        if n not in rules.player_counts:
            raise ValueError(f"these rules are not for {n} players")
        seat = _whole(v["seat"], "seat", 0, n - 1)
        sides_raw = v["sides"]
        if not isinstance(sides_raw, list):
            raise ValueError("sides must be a list")
        sides = [[_whole(s, "a side's seat", 0, n - 1) for s in side] for side in sides_raw
                 if isinstance(side, list)]
        if sorted(s for side in sides for s in side) != list(range(n)):
            raise ValueError("the sides must hold every seat once")
        captured_raw = v["captured"]
        if not isinstance(captured_raw, list) or len(captured_raw) != n:
            raise ValueError(f"captured: a list of {n} piles of cards")
        played = v.get("played_card")
        view = SeatView(
            rules=rules, seat=seat, num_players=n, sides=sides, hand=cards_from_json(v["hand"]),
            table=piles_from_json(v["table"]),
            captured=tuple(cards_from_json(c) for c in captured_raw),
            hand_sizes=_ints(v["hand_sizes"], "hand_sizes", n, 0),
            stock_size=_whole(v["stock_size"], "stock_size", 0, 104),
            scores=_ints(v["scores"], "scores", None),
            sweeps=_ints(v["sweeps"], "sweeps", None),
            dealer=_whole(v["dealer"], "dealer", 0, n - 1),
            to_move=_opt_whole(v["to_move"], "to_move", n - 1), phase=Phase(v["phase"]),
            last_capturer=_opt_whole(v["last_capturer"], "last_capturer", n - 1),
            is_last_deal=bool(v["is_last_deal"]), deal_no=_whole(v["deal_no"], "deal_no"),
            round_no=_whole(v["round"], "round"),
            pluck_used=tuple(bool(x) for x in v["pluck_used"]),
            target=_whole(v["target"], "target"), unassigned=cards_from_json(v["unassigned"]),
            played_card=None if played is None else card_from_json(played),
            deal_table=piles_from_json(v["deal_table"]),
            deal_plays=tuple(move_from_json(m) for m in _list(v["deal_plays"])))
    except (KeyError, TypeError) as e:
        raise ValueError(f"a view is missing or has a damaged field ({e})") from None
    except ValueError:
        raise
    except Exception as e:  # RulesError and the like
        raise ValueError(str(e)) from None
    _check_view(view)
    return view


def _list(value: object) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError("deal_plays must be a list")
    return value


def _check_view(view: SeatView) -> None:
    if view.to_move != view.seat or view.phase not in (Phase.PLAY, Phase.PLUCK):
        raise ValueError("it is not this seat's turn")
    if view.hand_sizes[view.seat] != len(view.hand) or not view.hand:
        raise ValueError("the hand does not match its size")
    if len(view.pluck_used) != view.num_players:
        raise ValueError("pluck_used: one flag per seat")
    seen: list[int] = list(view.hand) + list(view.unassigned)
    for pile in view.table:
        seen.extend([pile] if isinstance(pile, int) else pile.cards)
    for cards in view.captured:
        seen.extend(cards)
    deck = set(view.rules.deck_cards)
    if len(seen) != len(set(seen)) or not deck.issuperset(seen):
        raise ValueError("a card that is seen twice or is not in the deck")


def estimate_to_json(est: Estimate) -> dict[str, JSON]:
    return {"played": move_to_json(est.played), "best": move_to_json(est.best),
            "difference": float(est.difference), "forced": est.forced, "exact": est.exact,
            "worlds": est.worlds}


def estimate_from_json(value: object) -> Estimate:
    from casino_tui.ai.review import Estimate

    if not isinstance(value, Mapping):
        raise ValueError("an estimate must be an object")
    difference = value.get("difference")
    if isinstance(difference, bool) or not isinstance(difference, int | float):
        raise ValueError("an estimate's difference must be a number")
    worlds = value.get("worlds", 0)
    return Estimate(move_from_json(value.get("played")), move_from_json(value.get("best")),
                    float(difference), bool(value.get("forced", False)),
                    bool(value.get("exact", False)),
                    worlds if isinstance(worlds, int) and not isinstance(worlds, bool) else 0)


# ---------------------------------------------------------------------- the server's end
class ComputerService:
    """The pool on its channel, in the server: :meth:`start`, :meth:`register` each session's
    secret, :meth:`end_session` when it ends (its waiting requests are dropped), :meth:`close`.
    """

    def __init__(self, pool: ComputerPool, *, max_in_flight: int = MAX_IN_FLIGHT,
                 max_request: int = MAX_REQUEST, max_strikes: int = MAX_STRIKES) -> None:
        self.pool = pool
        self.max_in_flight = max_in_flight
        self.max_strikes = max_strikes
        self.wire = WireServer(self._handle, on_disconnect=self._gone, max_frame=max_request)
        self._secrets: dict[str, Identity] = {}
        self._tasks: dict[Identity, dict[int, asyncio.Task[None]]] = {}
        self._strikes: dict[Identity, int] = {}

    @property
    def path(self) -> Path | None:
        return self.wire.path

    async def start(self, path: Path) -> None:
        """Listen on ``path`` (its directory is made private). Raises :class:`WireError`."""
        await self.wire.start(path)

    async def close(self) -> None:
        for tasks in list(self._tasks.values()):
            for task in list(tasks.values()):
                task.cancel()
        await self.wire.close()

    def register(self, secret: str, identity: Identity) -> None:
        """Admit the app that says ``secret``: its requests are ``identity``'s."""
        self.wire.register(secret, identity)
        self._secrets[secret] = identity

    def end_session(self, secret: str) -> None:
        """The session of ``secret`` ended: its connection closes, its requests are dropped."""
        identity = self._secrets.pop(secret, None)
        self.wire.unregister(secret)
        if identity is not None:
            self._forget(identity)

    def in_flight(self, identity: Identity) -> int:
        return len(self._tasks.get(identity, ()))

    def _gone(self, identity: Identity) -> None:
        self._forget(identity)

    def _forget(self, identity: Identity) -> None:
        self._strikes.pop(identity, None)
        dropped = self.pool.drop(identity)
        for task in self._tasks.pop(identity, {}).values():
            task.cancel()
        if dropped:
            log.debug("computer players: dropped %d request(s) of session %d", dropped,
                      identity.session)

    def _refuse(self, identity: Identity, number: object, reason: str, kind: str) -> None:
        with contextlib.suppress(FrameError):
            self.wire.send(identity, {"type": "refused", "id": number, "reason": reason,
                                      "kind": kind})

    def _handle(self, identity: Identity, message: Message) -> None:
        number = message.get("id")
        if message.get("type") == "cancel":  # the app stopped waiting: so do we
            task = self._tasks.get(identity, {}).get(number) if isinstance(number, int) else None
            if task is not None:
                task.cancel()
            return
        try:
            if message.get("type") != "think":
                raise ValueError("only think requests are accepted")
            if isinstance(number, bool) or not isinstance(number, int):
                raise ValueError("a request needs a whole-number id")
            call = self._parse(message)
        except ValueError as err:
            strikes = self._strikes.get(identity, 0) + 1
            self._strikes[identity] = strikes
            self._refuse(identity, number, f"not a valid request: {err}"[:200], "request")
            if strikes >= self.max_strikes:
                log.warning("computer players: cut off session %d of player %s: %d requests "
                            "that are not valid", identity.session, identity.player, strikes)
                self.wire.disconnect(identity)
            return
        tasks = self._tasks.setdefault(identity, {})
        if len(tasks) >= self.max_in_flight or number in tasks:
            self._refuse(identity, number, f"at most {self.max_in_flight} requests at once",
                         "busy")
            return
        task = asyncio.get_running_loop().create_task(self._answer(identity, number, call))
        tasks[number] = task
        task.add_done_callback(lambda _t: tasks.pop(number, None))

    def _parse(self, m: Message) -> tuple[str, SeatView, str, int, float | None, Move | None]:
        op = m.get("op")
        if op not in ("choose", "hint", "review"):
            raise ValueError(f"unknown op {str(op)[:20]!r}")
        view = seat_view_from_json(m.get("view"))
        seed = m.get("seed")
        if isinstance(seed, bool) or not isinstance(seed, int) or abs(seed) >= 2 ** 63:
            raise ValueError("seed must be a whole number")
        budget = m.get("budget")
        if budget is not None:
            if isinstance(budget, bool) or not isinstance(budget, int | float):
                raise ValueError("budget must be a number of seconds")
            budget = min(MAX_BUDGET, max(MIN_BUDGET, float(budget)))
        level = "hard"
        if op == "choose":
            level = m.get("level")  # type: ignore[assignment]
            if level not in LEVELS:
                raise ValueError(f"level must be one of {', '.join(LEVELS)}")
        played = move_from_json(m.get("played")) if op == "review" else None
        return op, view, level, seed, budget, played

    async def _answer(self, identity: Identity, number: int,
                      call: tuple[str, SeatView, str, int, float | None, Move | None]) -> None:
        from casino_tui.ai.pool import PoolRefused  # the server's side only: the app's
        # process never imports the computer players (casino_tui.ai), only this module

        op, view, level, seed, budget, played = call
        try:
            if op == "choose":
                move = await self.pool.choose(view, level, seed, client=identity,
                                              budget=budget)
                answer: dict[str, JSON] = {"move": move_to_json(move)}
            elif op == "hint":
                move, why = await self.pool.hint(view, seed, client=identity, budget=budget)
                answer = {"move": move_to_json(move), "why": why}
            else:
                assert played is not None
                est = await self.pool.review(view, played, seed, client=identity,
                                             budget=budget)
                answer = {"estimate": estimate_to_json(est)}
        except PoolRefused as err:
            self._refuse(identity, number, str(err), "pool")
            return
        with contextlib.suppress(FrameError):
            self.wire.send(identity, {"type": "answer", "id": number, **answer})


# ---------------------------------------------------------------------- the app's end
class ComputerClient:
    """The app's end: ``await client.choose(view, level, seed)``, ``hint``, ``review``
    (:class:`ComputerError` when the pool cannot answer); connects on the first request and
    once more after the connection dropped; :meth:`close` at the end."""

    def __init__(self, path: Path, secret: str) -> None:
        self.path = path
        self.secret = secret
        self._wire: WireClient | None = None
        self._reader: asyncio.Task[None] | None = None
        self._pending: dict[int, asyncio.Future[Message]] = {}
        self._ids = itertools.count(1)
        self._lock: asyncio.Lock | None = None
        self._closed = False

    @classmethod
    def from_environment(cls, env: Mapping[str, str] | None = None) -> ComputerClient | None:
        link = link_from_environment(os.environ if env is None else env)
        return None if link is None else cls(*link)

    async def connect(self) -> None:
        """Connect now (else on the first request); :class:`ComputerError` if it cannot."""
        if self._closed:
            raise ComputerError(UNREACHABLE)
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._wire is not None and self._wire.connected:
                return
            try:
                self._wire = await WireClient.connect(self.path, self.secret,
                                                      max_frame=MAX_REQUEST)
            except Refused as err:
                raise ComputerError(f"{UNREACHABLE} ({err})") from None
            except (OSError, TimeoutError, WireError) as err:
                raise ComputerError(f"{UNREACHABLE} ({type(err).__name__})") from None
            self._reader = asyncio.get_running_loop().create_task(self._read(self._wire))

    async def _read(self, wire: WireClient) -> None:
        try:
            async for message in wire:
                number = message.get("id")
                future = self._pending.pop(number, None) if isinstance(number, int) else None
                if future is not None and not future.done():
                    future.set_result(message)
        except FrameError:
            pass
        finally:
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ComputerError(
                        "the connection to the server's computer players dropped"))
            self._pending.clear()

    async def _ask(self, request: dict[str, JSON], budget: float) -> Message:
        await self.connect()
        wire = self._wire
        assert wire is not None
        number = next(self._ids)
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._pending[number] = future
        try:
            await wire.send({"type": "think", "id": number, **request})
            answer = await asyncio.wait_for(future, budget + ANSWER_SLACK)
        except asyncio.CancelledError:
            self._cancel(wire, number)
            raise
        except (ConnectionError, OSError):
            raise ComputerError("the connection to the server's computer players "
                                "dropped") from None
        except TimeoutError:
            self._cancel(wire, number)
            raise ComputerError("the server's computer players did not answer in "
                                "time") from None
        finally:
            self._pending.pop(number, None)
        if answer.get("type") != "answer":
            raise ComputerError(str(answer.get("reason") or "the server refused")[:200])
        return answer

    async def choose(self, view: SeatView, level: str, seed: int,
                     budget: float | None = None) -> Move:
        answer = await self._ask({"op": "choose", "view": seat_view_to_json(view),
                                  "level": level, "seed": seed, "budget": budget},
                                 budget or 1.0)
        return self._move(answer)

    async def hint(self, view: SeatView, seed: int, budget: float) -> tuple[Move, str]:
        answer = await self._ask({"op": "hint", "view": seat_view_to_json(view), "seed": seed,
                                  "budget": budget}, budget)
        why = answer.get("why")
        return self._move(answer), why if isinstance(why, str) else ""

    async def review(self, view: SeatView, played: Move, seed: int, budget: float) -> Estimate:
        answer = await self._ask({"op": "review", "view": seat_view_to_json(view),
                                  "played": move_to_json(played), "seed": seed,
                                  "budget": budget}, budget)
        try:
            return estimate_from_json(answer.get("estimate"))
        except ValueError as err:
            raise ComputerError(f"a damaged answer ({err})") from None

    @staticmethod
    def _cancel(wire: WireClient, number: int) -> None:
        """Tell the server we no longer wait for request ``number`` (it counts against the
        session's requests at once until then)."""
        if wire.connected:
            wire.send_nowait({"type": "cancel", "id": number})

    @staticmethod
    def _move(answer: Message) -> Move:
        try:
            return move_from_json(answer.get("move"))
        except ValueError as err:
            raise ComputerError(f"a damaged answer ({err})") from None

    def close_nowait(self) -> None:
        """Close at once, without waiting (the app is ending); later requests are refused."""
        self._closed = True
        if self._reader is not None:
            self._reader.cancel()
            self._reader = None
        wire, self._wire = self._wire, None
        if wire is not None:
            wire.close_nowait()

    async def close(self) -> None:
        wire = self._wire
        self.close_nowait()
        if wire is not None:
            await wire.close()
