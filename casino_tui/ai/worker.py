"""Computer players in a separate process, for the asyncio (Textual) user interface.

Search is CPU-bound pure Python: in a thread of the UI process it would hold the GIL and make
the interface stutter. :class:`AIWorker` runs every choice in one worker process started with
the ``spawn`` method (a fresh interpreter that shares none of the UI's threads) and awaits it
without blocking the event loop::

    worker = AIWorker()
    move = await worker.choose(state.view(seat), "hard", seed=7)
    move, why = await worker.hint(state.view(me), seed=8)
    worker.shutdown()
"""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ..engine import Move, SeatView


def _choose_job(view: SeatView, level: str, seed: int, budget: float | None,
                iterations: int | None) -> Move:
    from . import choose_move

    return choose_move(view, level, seed=seed, budget=budget, iterations=iterations)


def _hint_job(view: SeatView, seed: int, budget: float | None,
              iterations: int | None) -> tuple[Move, str]:
    from . import hint

    return hint(view, seed=seed, budget=budget, iterations=iterations)


def _warm() -> bool:
    from . import choose_move  # noqa: F401  (import the search code once)

    return True


class AIWorker:
    """One worker process that computes moves and hints for the UI.

    Calls are queued: the process handles one at a time. If the process dies it is restarted
    and the call is tried once more. Use :meth:`shutdown` (or ``async with``) when done.
    """

    def __init__(self, context: str = "spawn") -> None:
        if context not in ("spawn", "forkserver"):
            raise ValueError("the worker process must be started with spawn or forkserver")
        self._context = multiprocessing.get_context(context)
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=self._context)
        return self._pool

    async def _run(self, fn: Any, *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor(), fn, *args)
        except BrokenProcessPool:
            self._pool = None
            return await loop.run_in_executor(self._executor(), fn, *args)

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

    def shutdown(self, wait: bool = False) -> None:
        """Stop the worker process; pending calls are cancelled."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=wait, cancel_futures=True)

    async def __aenter__(self) -> AIWorker:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.shutdown()
