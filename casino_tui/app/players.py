"""Computer players as the UI sees them: something that picks a move for a seat's view.

:class:`WorkerChooser` (the default) asks :class:`casino_tui.ai.worker.AIWorker`, which thinks in
a separate process, so the interface never freezes. It is imported lazily, when a game with a
computer seat starts, to keep the start-up path light.

:class:`PoolChooser` is the one of an app under ``casino-tui serve``: it asks the server's one pool
of computer players over a socket and starts no process of its own.

:class:`InProcessChooser` is the test hook: it decides synchronously in the UI's own process with
a deterministic function, so nothing races in snapshot and Pilot tests.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from casino_tui.engine import Move, SeatView

if TYPE_CHECKING:  # pragma: no cover
    from casino_tui.ai.review import Estimate
    from casino_tui.ai.worker import AIWorker
    from casino_tui.table.computers import ComputerClient

ChooseFn = Callable[..., Move]  # (view, level, *, seed) -> Move, like casino_tui.ai.choose_move
HintFn = Callable[..., tuple[Move, str]]  # (view, *, seed) -> (move, reason), like ai.hint
ReviewFn = Callable[..., "Estimate"]  # (view, played, *, seed) -> Estimate, like ai.review
HINT_BUDGET = 1.0  # seconds Hard thinks about a hint
REVIEW_BUDGET = 0.8  # seconds Hard thinks about each play of a round's review
REVIEW_ITERATIONS = 40  # the in-process chooser's fixed effort per play (reproducible)


class Chooser(Protocol):
    """Picks moves for computer seats."""

    in_process: bool

    def start(self) -> None:
        """Get ready (spawn a worker process); called when a game with computers starts."""

    async def choose(self, view: SeatView, level: str, seed: int) -> Move:
        """The move the computer at ``level`` plays in ``view``."""

    def choose_now(self, view: SeatView, level: str, seed: int) -> Move:
        """The same, synchronously (only for in-process choosers)."""

    async def hint(self, view: SeatView, seed: int) -> tuple[Move, str]:
        """Hard's suggested move for ``view.seat`` and a short reason."""

    def hint_now(self, view: SeatView, seed: int) -> tuple[Move, str]:
        """The same, synchronously (only for in-process choosers)."""

    async def review(self, view: SeatView, played: Move, seed: int) -> Estimate:
        """Hard's opinion of ``played`` in ``view`` (the round review): the move it would
        have made and the points it expects to gain (see :func:`casino_tui.ai.review.estimate`)."""

    def shutdown(self) -> None:
        """Stop any worker process."""


class WorkerChooser:
    """Computer moves from :class:`casino_tui.ai.worker.AIWorker` (a separate process)."""

    in_process = False

    def __init__(self) -> None:
        self._worker: AIWorker | None = None
        self._warming: asyncio.Task[None] | None = None

    def _get(self) -> AIWorker:
        if self._worker is None:
            from casino_tui.ai.worker import AIWorker

            _start_resource_tracker()
            self._worker = AIWorker()
        return self._worker

    def start(self) -> None:
        """Spawn the worker process and load the search code in the background."""
        worker = self._get()
        if self._warming is None:
            with contextlib.suppress(RuntimeError):  # no running event loop: warm up later
                self._warming = asyncio.get_running_loop().create_task(worker.start())

    async def choose(self, view: SeatView, level: str, seed: int) -> Move:
        return await self._get().choose(view, level, seed)

    def choose_now(self, view: SeatView, level: str, seed: int) -> Move:
        raise RuntimeError("the worker chooser is asynchronous")

    async def hint(self, view: SeatView, seed: int) -> tuple[Move, str]:
        return await self._get().hint(view, seed, HINT_BUDGET)

    def hint_now(self, view: SeatView, seed: int) -> tuple[Move, str]:
        raise RuntimeError("the worker chooser is asynchronous")

    async def review(self, view: SeatView, played: Move, seed: int) -> Estimate:
        return await self._get().review(view, played, seed, REVIEW_BUDGET)

    def shutdown(self) -> None:
        if self._warming is not None:
            self._warming.cancel()
            self._warming = None
        if self._worker is not None:
            self._worker.shutdown()
            self._worker = None


class PoolChooser:
    """Computer moves from the server's one pool of computer players (an app started by
    ``casino-tui serve``, whose environment names the pool's channel: see
    :mod:`casino_tui.table.computers`). It starts no process of its own (no worker, no
    resource tracker). When the pool cannot answer, :class:`~casino_tui.table.computers.
    ComputerError` says why: the game then plays a random move and says so (a hint or a
    review's estimate says it is missing)."""

    in_process = False

    def __init__(self, client: ComputerClient) -> None:
        self._client = client
        self._connecting: asyncio.Task[None] | None = None

    @classmethod
    def from_environment(cls, env: Mapping[str, str]) -> PoolChooser | None:
        """The chooser for an app whose environment names the pool, else None."""
        from casino_tui.table.computers import ComputerClient

        client = ComputerClient.from_environment(env)
        return None if client is None else cls(client)

    def start(self) -> None:
        """Connect to the pool in the background (else on the first request)."""
        if self._connecting is None:
            with contextlib.suppress(RuntimeError):  # no running event loop: connect later
                self._connecting = asyncio.get_running_loop().create_task(self._connect())

    async def _connect(self) -> None:
        from casino_tui.table.computers import ComputerError

        with contextlib.suppress(ComputerError):  # said again by the first request
            await self._client.connect()

    async def choose(self, view: SeatView, level: str, seed: int) -> Move:
        return await self._client.choose(view, level, seed)

    def choose_now(self, view: SeatView, level: str, seed: int) -> Move:
        raise RuntimeError("the pool chooser is asynchronous")

    async def hint(self, view: SeatView, seed: int) -> tuple[Move, str]:
        return await self._client.hint(view, seed, HINT_BUDGET)

    def hint_now(self, view: SeatView, seed: int) -> tuple[Move, str]:
        raise RuntimeError("the pool chooser is asynchronous")

    async def review(self, view: SeatView, played: Move, seed: int) -> Estimate:
        return await self._client.review(view, played, seed, REVIEW_BUDGET)

    def shutdown(self) -> None:
        if self._connecting is not None:
            self._connecting.cancel()
            self._connecting = None
        self._client.close_nowait()


def _start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker with the real stderr.

    While a Textual app runs, ``sys.stderr`` is a capture object whose ``fileno()`` is not a
    real descriptor; the tracker, started lazily by the first worker process, passes that
    descriptor to its child and fails ("bad value(s) in fds_to_keep"). Starting it here, with
    the process's real stderr in place, avoids that.

    The tracker writes on the terminal the app draws on; when the app is killed (SIGKILL), it
    would print a warning about the worker's semaphores over the player's screen as it
    removes them. It is started with its warnings off (``-W ignore::UserWarning``). It ends
    when the app and the worker have both ended (see :mod:`casino_tui.ai.worker`).
    """
    import sys
    from multiprocessing import resource_tracker

    saved, options = sys.stderr, list(sys.warnoptions)
    sys.stderr = sys.__stderr__
    sys.warnoptions.append("ignore::UserWarning")  # passed on to the tracker's command line
    try:
        resource_tracker.ensure_running()
    finally:
        sys.stderr = saved
        sys.warnoptions[:] = options


class InProcessChooser:
    """Deterministic computer moves decided in the UI's process (test hook).

    ``fn`` defaults to :func:`casino_tui.ai.choose_move`; ``hint_fn`` (hints) to
    :func:`casino_tui.ai.hint` and ``review_fn`` (the round review's estimates) to
    :func:`casino_tui.ai.review.estimate`, both with a fixed number of iterations
    (reproducible).
    """

    in_process = True

    def __init__(self, fn: ChooseFn | None = None, *, hint_fn: HintFn | None = None,
                 review_fn: ReviewFn | None = None, **kwargs: Any) -> None:
        self._fn = fn
        self._hint_fn = hint_fn
        self._review_fn = review_fn
        self._kwargs = kwargs

    def start(self) -> None:
        pass

    def choose_now(self, view: SeatView, level: str, seed: int) -> Move:
        fn = self._fn
        if fn is None:
            from casino_tui.ai import choose_move

            fn = choose_move
        return fn(view, level, seed=seed, **self._kwargs)

    async def choose(self, view: SeatView, level: str, seed: int) -> Move:
        return self.choose_now(view, level, seed)

    def hint_now(self, view: SeatView, seed: int) -> tuple[Move, str]:
        if self._hint_fn is not None:
            return self._hint_fn(view, seed=seed)
        from casino_tui.ai import hint

        return hint(view, seed=seed, iterations=200)

    async def hint(self, view: SeatView, seed: int) -> tuple[Move, str]:
        return self.hint_now(view, seed)

    def review_now(self, view: SeatView, played: Move, seed: int) -> Estimate:
        if self._review_fn is not None:
            return self._review_fn(view, played, seed=seed)
        from casino_tui.ai.review import estimate

        return estimate(view, played, seed=seed, iterations=REVIEW_ITERATIONS)

    async def review(self, view: SeatView, played: Move, seed: int) -> Estimate:
        return self.review_now(view, played, seed)

    def shutdown(self) -> None:
        pass
