"""Computer players in a separate process, for the asyncio (Textual) user interface.

Search is CPU-bound pure Python: in a thread of the UI process it would hold the GIL and make
the interface stutter. :class:`AIWorker` runs every choice in one worker process started with
the ``spawn`` method (a fresh interpreter that shares none of the UI's threads) and awaits it
without blocking the event loop::

    worker = AIWorker()
    move = await worker.choose(state.view(seat), "hard", seed=7)
    move, why = await worker.hint(state.view(me), seed=8)
    estimate = await worker.review(state.view(me), played, seed=9)  # a round's review
    worker.shutdown()

The worker process never outlives the process that started it, however that one ends (SIGKILL
included): on Linux the kernel kills it when its parent dies (``PR_SET_PDEATHSIG``); elsewhere,
and as a second guard, a thread of the worker notices that its parent has changed and ends it.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any

from ..engine import Move, SeatView
from ..procs import parent_death_signal

if TYPE_CHECKING:  # pragma: no cover
    from .review import Estimate

PARENT_POLL = 0.25  # seconds between two looks at the worker's parent


def _end_with_parent(parent: int, own_group: bool = False) -> None:
    """Run first in the worker process: end it when ``parent`` (the app) dies; with
    ``own_group``, a session of its own (``setsid``): where the kernel groups each session's
    processes for the scheduler (autogroup), it then weighs as much as any one game, instead of
    sharing one group with the server that started it (the server's pool of computers)."""
    if own_group:
        with contextlib.suppress(OSError):
            os.setsid()
    set_signal = parent_death_signal()
    if set_signal is not None:
        # Delivered when the thread that started the worker ends: the event loop's thread,
        # which submits every call (see AIWorker._run), lives as long as the app.
        set_signal(signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before that
        os._exit(0)
    threading.Thread(target=_watch_parent, args=(parent,), name="casino-tui-parent-watch",
                     daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL)
    os._exit(0)  # orphaned: the app is gone


def _choose_job(view: SeatView, level: str, seed: int, budget: float | None,
                iterations: int | None) -> Move:
    from . import choose_move

    return choose_move(view, level, seed=seed, budget=budget, iterations=iterations)


def _hint_job(view: SeatView, seed: int, budget: float | None,
              iterations: int | None) -> tuple[Move, str]:
    from . import hint

    return hint(view, seed=seed, budget=budget, iterations=iterations)


def _review_job(view: SeatView, played: Move, seed: int, budget: float | None,
                iterations: int | None) -> Estimate:
    from .review import estimate

    return estimate(view, played, seed=seed, budget=budget, iterations=iterations)


def _warm() -> bool:
    from . import choose_move  # noqa: F401  (import the search code once)

    return True


class AIWorker:
    """One worker process that computes moves and hints for the UI.

    Calls are queued: the process handles one at a time. If the process dies it is restarted
    and the call is tried once more. Use :meth:`shutdown` (or ``async with``) when done.
    """

    def __init__(self, context: str = "spawn", *, own_group: bool = False) -> None:
        if context not in ("spawn", "forkserver"):
            raise ValueError("the worker process must be started with spawn or forkserver")
        self._context = multiprocessing.get_context(context)
        self._own_group = own_group  # a session (a scheduler group) of its own
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=self._context,
                                             initializer=_end_with_parent,
                                             initargs=(os.getpid(), self._own_group))
        return self._pool

    async def _run(self, fn: Any, *args: Any) -> Any:
        try:
            return await self.call(fn, *args)
        except BrokenProcessPool:
            return await self.call(fn, *args)

    async def call(self, fn: Any, *args: Any) -> Any:
        """``fn(*args)`` in the worker process, once: ``BrokenProcessPool`` when the process
        died meanwhile (the next call starts a new one). ``fn`` must be a module-level
        function (it is pickled by name)."""
        loop = asyncio.get_running_loop()
        pool = self._executor()
        try:
            return await loop.run_in_executor(pool, fn, *args)
        except BrokenProcessPool:
            if self._pool is not pool:  # shut down meanwhile: the call was dropped
                raise asyncio.CancelledError from None
            self._pool = None
            raise

    def pids(self) -> list[int]:
        """The process ids of the worker process (none before the first call)."""
        pool = self._pool
        procs = (getattr(pool, "_processes", None) or {}) if pool is not None else {}
        return [p.pid for p in list(procs.values()) if p.pid is not None]

    async def start(self) -> None:
        """Start the process and load the search code now (optional; saves the first call
        about half a second)."""
        await self._run(_warm)

    async def choose(self, view: SeatView, level: str, seed: int, budget: float | None = None,
                     iterations: int | None = None) -> Move:
        """The move ``level`` plays for ``view.seat`` (see :func:`casino_tui.ai.choose_move`)."""
        move: Move = await self._run(_choose_job, view, level, seed, budget, iterations)
        return move

    async def hint(self, view: SeatView, seed: int, budget: float | None = None,
                   iterations: int | None = None) -> tuple[Move, str]:
        """Hard's suggestion for ``view.seat`` and the reason for it."""
        result: tuple[Move, str] = await self._run(_hint_job, view, seed, budget, iterations)
        return result

    async def review(self, view: SeatView, played: Move, seed: int, budget: float | None = None,
                     iterations: int | None = None) -> Estimate:
        """Hard's opinion of ``played`` in ``view`` (see :func:`casino_tui.ai.review.estimate`).
        Ask for one play at a time: a call already in the process runs to its end even when
        its caller is cancelled."""
        result: Estimate = await self._run(_review_job, view, played, seed, budget, iterations)
        return result

    def shutdown(self, wait: bool = False) -> None:
        """Stop the worker process at once (a choice it is making is dropped); pending calls
        are cancelled. ``wait``: until the process has ended."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        processes = list((getattr(pool, "_processes", None) or {}).values())
        manager = getattr(pool, "_executor_manager_thread", None)
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in processes:
            with contextlib.suppress(Exception):
                proc.kill()
        if wait:
            pool.shutdown(wait=True)
        elif isinstance(manager, threading.Thread):
            # The pool's manager thread sees the killed process at once and closes its wakeup
            # pipe: let it finish (briefly), or an exit right after races it (Python 3.11's
            # exit hook writes to that pipe as it closes: "OSError: Bad file descriptor").
            manager.join(timeout=2.0)

    async def __aenter__(self) -> AIWorker:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.shutdown()

