"""The server's one pool of computer players (casino_tui.ai.pool): fair between clients, every
move within its time even when the pool is saturated, crashes survived, sessions dropped.

Real worker processes (spawned): a few seconds in all. The bounds on time below are the pool's
promise (a move comes within its budget), checked with a wide margin for a busy machine; the
order of answers is what shows the fairness."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from casino_tui.ai.pool import ComputerPool, PoolRefused
from casino_tui.engine import Move, Rules, SeatView, State

SLACK = 1.0  # seconds over a budget a busy test machine may add


def long_view() -> SeatView:
    """A position where Hard uses its whole budget (four players, the first move)."""
    state = State(Rules.preset("classic"), 4, seed=0)
    return state.view(state.current_player)


def quick_view() -> SeatView:
    state = State(Rules.preset("classic"), 2, seed=4)
    return state.view(state.current_player)


async def timed(coro: object) -> tuple[float, object]:
    start = time.monotonic()
    result = await coro  # type: ignore[misc]
    return time.monotonic() - start, result


def test_hard_at_a_table_and_easy_alone_both_answered_in_time_while_saturated() -> None:
    """One search process, nine Hard moves of other clients queued: the solo Easy move comes
    at once (the fast lane) and the table's Hard move, queued last, still within its budget
    (its search gets the time left, or Medium's move when none is)."""
    big, small = long_view(), quick_view()

    async def run() -> None:
        pool = ComputerPool(workers=1, fast_workers=1)
        await pool.start()
        try:
            crowd = [asyncio.ensure_future(pool.choose(big, "hard", i, client=f"c{i}"))
                     for i in range(9)]
            await asyncio.sleep(0.1)
            assert pool.stats().waiting_search >= 7 and pool.stats().busy >= 1
            table = asyncio.ensure_future(timed(pool.choose(big, "hard", 99, client="table")))
            solo = asyncio.ensure_future(timed(pool.choose(small, "easy", 5, client="solo")))
            easy_time, easy_move = await solo
            assert isinstance(easy_move, Move) and easy_move in small.legal_moves()
            assert not table.done(), "Easy waited behind the Hard searches"
            assert easy_time < SLACK
            hard_time, hard_move = await table
            assert isinstance(hard_move, Move) and hard_move in big.legal_moves()
            assert hard_time < 1.0 + SLACK  # Hard's budget: one second, the wait included
            for move in await asyncio.gather(*crowd):
                assert move in big.legal_moves()
            stats = pool.stats()
            assert stats.answered == 11 and stats.waiting == 0 and stats.refused == 0
            assert stats.rushed >= 1  # out of time in the queue: Medium's move, on time
            assert stats.started == 11 and stats.wait_buckets[-1][1] <= stats.started
        finally:
            pool.shutdown()

    asyncio.run(run())


def test_searches_are_shared_earliest_deadline_first() -> None:
    """Hints and Hard moves queue by deadline: a request with a shorter budget, made later,
    is computed before one made earlier with a longer budget."""
    big = long_view()

    async def run() -> None:
        pool = ComputerPool(workers=1, fast_workers=0)
        await pool.start()
        try:
            first = asyncio.ensure_future(pool.choose(big, "hard", 1, client="a", budget=0.4))
            await asyncio.sleep(0.05)  # the process is busy with it
            order: list[str] = []

            async def ask(name: str, budget: float) -> None:
                await pool.hint(big, 2, client=name, budget=budget)
                order.append(name)

            await asyncio.gather(ask("patient", 2.0), ask("hurried", 0.8))
            await first
            assert order == ["hurried", "patient"]
        finally:
            pool.shutdown()

    asyncio.run(run())


def test_a_crashed_worker_is_replaced_and_its_move_answered() -> None:
    big = long_view()

    async def run() -> None:
        pool = ComputerPool(workers=1, fast_workers=0)
        await pool.start()
        try:
            [pid] = pool.pids()
            move = asyncio.ensure_future(pool.choose(big, "hard", 3, client="a", budget=2.0))
            await asyncio.sleep(0.3)
            assert pool.stats().busy == 1
            os.kill(pid, signal.SIGKILL)
            answer = await asyncio.wait_for(move, 30)
            assert answer in big.legal_moves()
            assert pool.stats().crashes == 1
            assert pool.pids() and pid not in pool.pids()
            # the new process goes on answering
            assert await pool.choose(big, "medium", 4, client="b") in big.legal_moves()
        finally:
            pool.shutdown()

    asyncio.run(run())


def test_a_request_that_keeps_crashing_is_refused() -> None:
    """A hint whose process dies twice (the retry too) is refused with a clear reason; the
    pool answers the next request."""
    big = long_view()

    async def run() -> None:
        pool = ComputerPool(workers=1, fast_workers=0)
        await pool.start()
        try:
            hint = asyncio.ensure_future(pool.hint(big, 3, client="a", budget=10.0))
            for _ in range(2):
                deadline = time.monotonic() + 20
                while not (pool.stats().busy and pool.pids()):
                    assert time.monotonic() < deadline
                    await asyncio.sleep(0.02)
                await asyncio.sleep(0.1)
                os.kill(pool.pids()[0], signal.SIGKILL)
                await asyncio.sleep(0.2)
            with pytest.raises(PoolRefused, match="crashed"):
                await asyncio.wait_for(hint, 30)
            assert pool.stats().crashes == 2 and pool.stats().refused == 1
            assert await pool.choose(big, "easy", 4, client="b") in big.legal_moves()
        finally:
            pool.shutdown()

    asyncio.run(run())


def test_dropping_a_client_refuses_its_waiting_requests_only() -> None:
    big = long_view()

    async def run() -> None:
        pool = ComputerPool(workers=1, fast_workers=0)
        await pool.start()
        try:
            busy = asyncio.ensure_future(pool.choose(big, "hard", 1, client="x", budget=0.5))
            await asyncio.sleep(0.05)
            gone = [asyncio.ensure_future(pool.choose(big, "hard", i, client="gone"))
                    for i in range(2)]
            stays = asyncio.ensure_future(pool.choose(big, "hard", 7, client="stays"))
            await asyncio.sleep(0.05)
            assert pool.waiting("gone") == 2
            assert pool.drop("gone") == 2
            for request in gone:
                with pytest.raises(PoolRefused, match="session ended"):
                    await request
            assert await stays in big.legal_moves()
            await busy
            assert pool.stats().dropped == 2 and pool.waiting("gone") == 0
        finally:
            pool.shutdown()

    asyncio.run(run())


def test_each_process_of_the_pool_is_a_scheduler_group_of_its_own() -> None:
    """The server's games run below its priority, each a session (a scheduler autogroup) of
    its own; the pool's processes are sessions of their own too, so that the computers' moves,
    which every game waits for, do not share one group's CPU with the server."""
    async def run() -> None:
        pool = ComputerPool(workers=1, fast_workers=1)
        await pool.start()
        try:
            assert await pool.choose(quick_view(), "easy", 1, client="a") in \
                quick_view().legal_moves()
            pids = pool.pids()
            assert len(pids) == 2
            for pid in pids:
                assert os.getsid(pid) == pid != os.getsid(0)
        finally:
            pool.shutdown()

    asyncio.run(run())
