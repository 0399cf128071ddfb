"""One pool of computer-player processes for a whole server: every session's computers.

A server with many players cannot start a worker process per game (each is a Python process of
its own, plus multiprocessing's resource tracker). :class:`ComputerPool` owns a few
:class:`~casino_tui.ai.worker.AIWorker` processes, sized to the host's cores, and answers every
request (a computer's move, a hint, one play of a round's review) of every client: the server's
tables, and each session's app over the computer players' channel
(:mod:`casino_tui.table.computers`).

Fair between clients, and every answer within its time:

* Every request carries its time budget; its *deadline* is its arrival plus that budget (the
  wait in the queue counts). A search is given only the time left until its deadline, and less
  when others are waiting (its share of the workers), never under :data:`MIN_SLICE`; a move of
  Hard whose deadline has come before a worker is free is Medium's move (instant), so a move
  is never late because the pool is saturated.
* Searches (Hard's moves, hints, reviews) wait in one queue, earliest deadline first. The cheap
  levels (random, easy, medium) have a lane of their own (:data:`FAST_WORKERS` processes that
  take nothing else; the search workers help when they have nothing to search): an Easy
  player's move never waits behind Hard searches.
* A client's requests still waiting are dropped with :meth:`ComputerPool.drop` (its session
  ended). How many requests a client may have at once is for the caller to bound (the channel
  allows two per session).
* A worker process that dies is replaced (a new one is started and warmed); the request it was
  running is tried once more while its deadline allows, else refused with
  :class:`PoolRefused`. A search that does not end :data:`HANG_GRACE` seconds after its time
  has its process killed (and replaced) and is refused.

:meth:`ComputerPool.stats` is a snapshot of the counters (requests waiting, their wait, the
wait of every request answered so far as a histogram), for the server's log and metrics.

Only the engine and this package are used, as everywhere in :mod:`casino_tui.ai`.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import os
import time
from collections.abc import Callable, Hashable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..engine import Move, SeatView
from .worker import AIWorker, _warm

if TYPE_CHECKING:  # pragma: no cover
    from .review import Estimate

log = logging.getLogger("casino_tui.ai.pool")

CHEAP_LEVELS = frozenset({"random", "easy", "medium"})  # no search: the fast lane
FAST_WORKERS = 1  # processes that only take the cheap levels
DEFAULT_BUDGET = 1.0  # seconds for a move of Hard (casino_tui.ai.DEFAULT_BUDGET)
MIN_SLICE = 0.05  # the least time a search is given (seconds)
# seconds kept for passing the request and the answer between processes, and for a search
# that checks its clock only now and then (on a busy machine 30 ms was not enough)
MARGIN = 0.1
HANG_GRACE = 5.0  # seconds past its time before a search's process is killed
# Upper bounds of the wait histogram (seconds), for the metrics
WAIT_BUCKETS: tuple[float, ...] = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class PoolRefused(Exception):
    """The pool could not answer this request (its process crashed twice, the pool is shut
    down, the client's session ended, the request is not valid); the message says why in a
    player's words."""


# ---------------------------------------------------------------------- the jobs (in a worker)
def _pool_job(op: str, view: SeatView, level: str, seed: int, budget: float | None,
              played: Move | None) -> Any:
    """One request, in a worker process."""
    if op == "choose":
        from . import choose_move

        return choose_move(view, level, seed=seed, budget=budget)
    if op == "hint":
        from . import hint

        return hint(view, seed=seed, budget=budget)
    if op == "review":
        from .review import estimate

        assert played is not None
        return estimate(view, played, seed=seed, budget=budget)
    raise ValueError(f"unknown request {op!r}")


def _crash_job() -> None:  # pragma: no cover - runs in the worker, which it ends
    """For tests: the worker process dies as if it had crashed."""
    os._exit(70)


# ---------------------------------------------------------------------- requests and counters
@dataclass(eq=False)
class _Request:
    op: str
    view: SeatView
    level: str
    seed: int
    budget: float
    played: Move | None
    client: Hashable
    arrived: float
    deadline: float
    future: asyncio.Future[Any]
    attempts: int = 0
    started: float | None = None

    @property
    def cheap(self) -> bool:
        return self.op == "choose" and self.level in CHEAP_LEVELS


@dataclass(frozen=True)
class PoolStats:
    """A snapshot of the pool (:meth:`ComputerPool.stats`).

    ``waiting``: requests not yet given to a process (``waiting_search`` of them searches,
    ``waiting_fast`` cheap moves); ``oldest_wait``: how long the oldest of them has waited
    (seconds); ``busy``: processes computing now; ``started``: requests given to a process
    since the start, ``wait_sum`` their total wait in the queue (seconds) and ``wait_buckets``
    how many of them waited at most each bound of :data:`WAIT_BUCKETS` (cumulative, as
    Prometheus histograms count; ``started`` is the count of the histogram, its +Inf bucket);
    ``answered``: requests answered; ``refused``, ``dropped`` (their session ended),
    ``rushed`` (Hard's move out of time: Medium's), ``crashes`` (worker processes that died
    or were killed);
    ``answer_sum`` and ``answer_max``: the time from each request to its answer (seconds),
    ``late`` answers that came after their deadline."""

    workers: int
    fast_workers: int
    busy: int
    waiting: int
    waiting_search: int
    waiting_fast: int
    oldest_wait: float
    started: int
    answered: int
    refused: int
    dropped: int
    rushed: int
    crashes: int
    wait_sum: float
    wait_max: float
    wait_buckets: tuple[tuple[float, int], ...]
    answer_sum: float
    answer_max: float
    late: int

    def summary(self) -> str:
        """One line for the log."""
        mean = self.wait_sum / self.started if self.started else 0.0
        answer = self.answer_sum / self.answered if self.answered else 0.0
        return (f"{self.answered} answered (waited {mean * 1000:.0f} ms on average, "
                f"{self.wait_max * 1000:.0f} ms at most; answered in {answer * 1000:.0f} ms on "
                f"average, {self.answer_max * 1000:.0f} ms at most; {self.late} late, "
                f"{self.rushed} out of time: Medium's move), {self.refused} refused, "
                f"{self.dropped} dropped, {self.crashes} crashed processes")


@dataclass
class _Counters:
    started: int = 0
    answered: int = 0
    refused: int = 0
    dropped: int = 0
    rushed: int = 0
    crashes: int = 0
    wait_sum: float = 0.0
    wait_max: float = 0.0
    answer_sum: float = 0.0
    answer_max: float = 0.0
    late: int = 0
    buckets: list[int] = field(default_factory=lambda: [0] * len(WAIT_BUCKETS))

    def waited(self, seconds: float) -> None:
        self.started += 1
        self.wait_sum += seconds
        self.wait_max = max(self.wait_max, seconds)
        for i, bound in enumerate(WAIT_BUCKETS):
            if seconds <= bound:
                self.buckets[i] += 1


class _Slot:
    """One worker process of the pool and what it is doing."""

    def __init__(self, worker: AIWorker, fast: bool) -> None:
        self.worker = worker
        self.fast = fast
        self.request: _Request | None = None
        self.task: asyncio.Task[None] | None = None


# ---------------------------------------------------------------------- the pool
class ComputerPool:
    """The server's computer players: ``await pool.choose(view, level, seed, client=...)``,
    ``hint`` and ``review`` likewise; :meth:`drop` a client's waiting requests,
    :meth:`stats`, :meth:`shutdown` at the end. Its :meth:`choose` is a table's ``Thinker``.

    ``workers``: processes for searches (default: the host's cores); ``fast_workers``:
    processes for the cheap levels only; ``clock``: seconds (monotonic)."""

    def __init__(self, workers: int | None = None, *, fast_workers: int = FAST_WORKERS,
                 context: str = "spawn",
                 clock: Callable[[], float] = time.monotonic) -> None:
        count = workers if workers is not None else (os.cpu_count() or 1)
        # Each process a scheduler group of its own (serve/forkserver.py, "autogroup"): the
        # games run below the server's priority, and the computers' moves, which every game
        # waits for, must not share one group's CPU with the server.
        self._slots = ([_Slot(AIWorker(context, own_group=True), False)
                        for _ in range(max(1, count))]
                       + [_Slot(AIWorker(context, own_group=True), True)
                          for _ in range(max(0, fast_workers))])
        self._clock = clock
        self._search: list[tuple[float, int, _Request]] = []  # a heap: earliest deadline first
        self._fast: list[tuple[float, int, _Request]] = []
        self._seq = itertools.count()
        self._wake: asyncio.Condition | None = None
        self._counts = _Counters()
        self._closed = False

    @property
    def size(self) -> int:
        """The number of worker processes (searches and the fast lane)."""
        return len(self._slots)

    # ------------------------------------------------------------------ life
    def _ensure_started(self) -> asyncio.Condition:
        if self._closed:
            raise PoolRefused("the server's computer players have stopped")
        if self._wake is None:
            self._wake = asyncio.Condition()
            loop = asyncio.get_running_loop()
            for slot in self._slots:
                slot.task = loop.create_task(self._serve(slot))
        return self._wake

    async def start(self) -> None:
        """Start every process and load the search code now (else on the first request)."""
        self._ensure_started()
        await asyncio.gather(*(slot.worker.call(_warm) for slot in self._slots),
                             return_exceptions=True)

    def shutdown(self) -> None:
        """Stop every process; requests not yet answered are refused."""
        self._closed = True
        for slot in self._slots:
            if slot.task is not None:
                slot.task.cancel()
            if slot.request is not None:
                self._refuse(slot.request, "the server's computer players have stopped")
                slot.request = None
            slot.worker.shutdown()
        for _d, _n, request in self._search + self._fast:
            self._refuse(request, "the server's computer players have stopped")
        self._search.clear()
        self._fast.clear()

    def pids(self) -> list[int]:
        """The process ids of the worker processes now running."""
        return [pid for slot in self._slots for pid in slot.worker.pids()]

    # ------------------------------------------------------------------ requests
    async def choose(self, view: SeatView, level: str, seed: int, *,
                     client: Hashable = None, budget: float | None = None) -> Move:
        """The move ``level`` plays for ``view.seat``, within ``budget`` seconds from now
        (default: Hard's one second)."""
        move: Move = await self._submit("choose", view, level, seed, budget, None, client)
        return move

    async def hint(self, view: SeatView, seed: int, *, client: Hashable = None,
                   budget: float | None = None) -> tuple[Move, str]:
        """Hard's suggestion for ``view.seat`` and the reason for it."""
        result: tuple[Move, str] = await self._submit("hint", view, "hard", seed, budget, None,
                                                      client)
        return result

    async def review(self, view: SeatView, played: Move, seed: int, *,
                     client: Hashable = None, budget: float | None = None) -> Estimate:
        """Hard's opinion of ``played`` in ``view`` (:func:`casino_tui.ai.review.estimate`)."""
        result: Estimate = await self._submit("review", view, "hard", seed, budget, played,
                                              client)
        return result

    async def _submit(self, op: str, view: SeatView, level: str, seed: int,
                      budget: float | None, played: Move | None, client: Hashable) -> Any:
        wake = self._ensure_started()
        now = self._clock()
        budget = DEFAULT_BUDGET if budget is None else budget
        if not budget > 0:
            raise ValueError("budget must be a positive number of seconds")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        request = _Request(op, view, level, seed, budget, played, client, now, now + budget,
                           future)
        self._queue(request)
        async with wake:
            wake.notify_all()
        try:
            return await future
        except asyncio.CancelledError:
            self._forget(request)
            raise

    def _queue(self, request: _Request) -> None:
        heap = self._fast if request.cheap else self._search
        heapq.heappush(heap, (request.deadline, next(self._seq), request))

    def _forget(self, request: _Request) -> None:
        """A waiting request whose caller gave up: out of the queue."""
        for heap in (self._search, self._fast):
            for i, entry in enumerate(heap):
                if entry[2] is request:
                    heap.pop(i)
                    heapq.heapify(heap)
                    return

    def drop(self, client: Hashable) -> int:
        """Refuse every waiting request of ``client`` (its session ended); the number dropped.
        A request a process is computing runs to its end (its answer is not waited for)."""
        dropped = 0
        for heap in (self._search, self._fast):
            keep = [e for e in heap if e[2].client != client]
            for _d, _n, request in heap:
                if request.client == client:
                    dropped += 1
                    if not request.future.done():
                        request.future.set_exception(PoolRefused("the session ended"))
                        request.future.exception()  # retrieved: nobody may await it now
            heap[:] = keep
            heapq.heapify(heap)
        self._counts.dropped += dropped
        return dropped

    def waiting(self, client: Hashable) -> int:
        """How many requests of ``client`` are waiting or being computed."""
        queued = sum(1 for heap in (self._search, self._fast) for e in heap
                     if e[2].client == client)
        return queued + sum(1 for s in self._slots
                            if s.request is not None and s.request.client == client)

    def stats(self) -> PoolStats:
        now = self._clock()
        waiting = [e[2] for e in self._search] + [e[2] for e in self._fast]
        c = self._counts
        cumulative = tuple(zip(WAIT_BUCKETS, c.buckets, strict=True))
        return PoolStats(
            workers=sum(1 for s in self._slots if not s.fast),
            fast_workers=sum(1 for s in self._slots if s.fast),
            busy=sum(1 for s in self._slots if s.request is not None),
            waiting=len(waiting), waiting_search=len(self._search),
            waiting_fast=len(self._fast),
            oldest_wait=max((now - r.arrived for r in waiting), default=0.0),
            started=c.started, answered=c.answered, refused=c.refused, dropped=c.dropped,
            rushed=c.rushed,
            crashes=c.crashes, wait_sum=c.wait_sum, wait_max=c.wait_max,
            wait_buckets=cumulative, answer_sum=c.answer_sum, answer_max=c.answer_max,
            late=c.late)

    # ------------------------------------------------------------------ the workers
    def _next_for(self, slot: _Slot) -> _Request | None:
        heaps = (self._fast,) if slot.fast else (self._search, self._fast)
        for heap in heaps:
            while heap:
                _d, _n, request = heapq.heappop(heap)
                if not request.future.done():
                    return request
        return None

    async def _serve(self, slot: _Slot) -> None:
        wake = self._wake
        assert wake is not None
        while True:
            async with wake:
                request = self._next_for(slot)
                while request is None:
                    await wake.wait()
                    request = self._next_for(slot)
            slot.request = request
            try:
                await self._compute(slot, request)
            except asyncio.CancelledError:
                raise
            except Exception:  # never let one request stop a worker's loop
                log.exception("the computer players' pool failed on a request")
                self._refuse(request, "the computer player failed")
            finally:
                slot.request = None

    def _granted(self, request: _Request, now: float) -> float | None:
        """The seconds a search may take now (None: no time left for it)."""
        left = request.deadline - now - MARGIN
        others = len(self._search)
        workers = sum(1 for s in self._slots if not s.fast)
        share = request.budget * workers / (workers + others) if others else request.budget
        granted = min(left, share)
        if granted < MIN_SLICE:
            return None
        return granted

    async def _compute(self, slot: _Slot, request: _Request) -> None:
        now = self._clock()
        if request.attempts == 0:
            self._counts.waited(now - request.arrived)
        request.started = now
        request.attempts += 1
        op, level, budget = request.op, request.level, None
        if not request.cheap:
            granted = self._granted(request, now)
            if granted is None and op == "choose":
                level = "medium"  # Hard out of time: the instant move keeps it on time
                self._counts.rushed += 1
            else:
                budget = granted if granted is not None else MIN_SLICE
        limit = (budget or MIN_SLICE) + HANG_GRACE
        call = slot.worker.call(_pool_job, op, request.view, level, request.seed, budget,
                                request.played)
        try:
            result = await asyncio.wait_for(call, limit)
        except BrokenProcessPool:
            self._counts.crashes += 1
            log.warning("a computer player's process died (%s of %s); it is replaced",
                        op, level)
            slot.request = None
            if (request.attempts < 2 and not request.future.done()
                    and (request.cheap or self._granted(request, self._clock()) is not None
                         or op == "choose")):
                self._queue(request)  # once more, in a fresh process (or another one)
                wake = self._wake
                if wake is not None:
                    async with wake:
                        wake.notify_all()
            else:
                self._refuse(request, "the computer player's process crashed")
            await self._restart(slot)
            return
        except TimeoutError:
            self._counts.crashes += 1
            log.warning("a computer player's %s took %gs over its time: its process is "
                        "killed and replaced", op, HANG_GRACE)
            slot.request = None
            self._refuse(request, "the computer player took too long")
            await self._restart(slot)
            return
        except Exception as err:  # a request the engine or the search refuses
            self._refuse(request, f"the computer player failed ({err})"[:200])
            return
        if not request.future.done():
            request.future.set_result(result)
            c, now = self._counts, self._clock()
            c.answered += 1
            c.answer_sum += now - request.arrived
            c.answer_max = max(c.answer_max, now - request.arrived)
            if now > request.deadline:
                c.late += 1

    async def _restart(self, slot: _Slot) -> None:
        """A new process for ``slot``, warmed before it takes another request."""
        slot.worker.shutdown()
        with contextlib.suppress(BrokenProcessPool, OSError):
            await slot.worker.call(_warm)

    def _refuse(self, request: _Request, reason: str) -> None:
        if not request.future.done():
            request.future.set_exception(PoolRefused(reason))
            self._counts.refused += 1
