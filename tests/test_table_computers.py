"""The computer players' channel (casino_tui.table.computers): a session's app asks the server's
one pool over a real Unix socket. Only what the seat's view holds is sent; each session has at
most two requests at once; garbage cuts that session off and nobody else; a session's end
drops its requests; when the pool cannot be reached the game plays on (a random move, said)."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Coroutine, Hashable
from pathlib import Path
from typing import Any

import pytest
from table_support import cards_in

from casino_tui.ai.pool import ComputerPool, PoolRefused
from casino_tui.app.players import PoolChooser
from casino_tui.engine import Move, Rules, SeatView, State
from casino_tui.table import GameConfig, TableController
from casino_tui.table.computers import (
    MAX_IN_FLIGHT,
    MAX_REQUEST,
    SECRET_ENV,
    SOCKET_ENV,
    ComputerClient,
    ComputerError,
    ComputerService,
    computers_environment,
    seat_view_from_json,
    seat_view_to_json,
    socket_path,
)
from casino_tui.table.config import default_seats
from casino_tui.table.wire import Identity, WireClient, encode, new_secret

ANN = Identity("player-ann", "SHA256:ann", 1)
BOB = Identity("player-bob", "SHA256:bob", 2)


def run(coro: Coroutine[Any, Any, None], timeout: float = 60) -> None:
    asyncio.run(asyncio.wait_for(coro, timeout))


def played_views(preset: str, players: int, seed: int, moves: int) -> list[tuple[State, int]]:
    """Positions of a game played at random: (the full state, the seat to move)."""
    state = State(Rules.preset(preset), players, seed=seed)
    rng = random.Random(seed)
    out = []
    for _ in range(moves):
        if state.is_round_over:
            break
        seat = state.current_player
        assert seat is not None
        out.append((state.clone(), seat))
        state.apply(rng.choice(state.legal_moves()))
    return out


def test_a_view_crosses_as_json_whole_and_without_a_hidden_card() -> None:
    for preset, players, seed in (("classic", 2, 3), ("classic", 4, 5), ("royal", 2, 8),
                                  ("pluck", 4, 1)):
        for state, seat in played_views(preset, players, seed, 30):
            view = state.view(seat)
            data = json.loads(json.dumps(seat_view_to_json(view)))
            assert seat_view_from_json(data) == view
            hidden = set(state.stock)
            for other in range(players):
                if other != seat:
                    hidden |= set(state.hands[other])
            assert not (cards_in(data) & hidden), (preset, seat)


def test_a_view_that_breaks_the_rules_is_refused() -> None:
    state = State(Rules.preset("classic"), 2, seed=4)
    seat = state.current_player
    assert seat is not None
    good = seat_view_to_json(state.view(seat))
    other = seat_view_to_json(state.view(1 - seat))
    bad: list[object] = [
        None, [], {**good, "seat": 5}, {**good, "hand": good["hand"] + good["hand"][:1]},
        {**good, "table": ["ZZ"]}, {**good, "sides": [[0]]}, {**good, "stock_size": -1},
        {k: v for k, v in good.items() if k != "rules"}, other,  # not this seat's turn
        {**good, "rules": {"preset": "no such rules"}},
    ]
    for value in bad:
        with pytest.raises(ValueError):
            seat_view_from_json(value)


class GatedPool:
    """A stand-in for the pool: answers only when ``gate`` is set, records drops."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.dropped: list[Hashable] = []
        self.asked = 0

    async def choose(self, view: SeatView, level: str, seed: int, *, client: Hashable = None,
                     budget: float | None = None) -> Move:
        self.asked += 1
        await self.gate.wait()
        return view.legal_moves()[0]

    def drop(self, client: Hashable) -> int:
        self.dropped.append(client)
        return 0


class Channel:
    def __init__(self, tmp_path: Path, pool: Any) -> None:
        self.service = ComputerService(pool)
        self.path = socket_path(tmp_path)
        self.secrets: dict[Identity, str] = {}

    async def __aenter__(self) -> Channel:
        await self.service.start(self.path)
        for who in (ANN, BOB):
            self.secrets[who] = new_secret()
            self.service.register(self.secrets[who], who)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.service.close()

    def client(self, who: Identity) -> ComputerClient:
        return ComputerClient(self.path, self.secrets[who])


def a_view() -> SeatView:
    state = State(Rules.preset("classic"), 2, seed=4)
    assert state.current_player is not None
    return state.view(state.current_player)


def test_the_real_pool_answers_moves_hints_and_reviews_over_the_channel(tmp_path: Path) -> None:
    view = a_view()

    async def go() -> None:
        pool = ComputerPool(workers=1, fast_workers=1)
        try:
            async with Channel(tmp_path, pool) as channel:
                assert channel.path.parent.stat().st_mode & 0o777 == 0o700
                client = channel.client(ANN)
                for level in ("random", "easy", "medium", "hard"):
                    assert await client.choose(view, level, 3) in view.legal_moves()
                move, why = await client.hint(view, 4, 0.3)
                assert move in view.legal_moves() and why
                played = view.legal_moves()[-1]
                estimate = await client.review(view, played, 5, 0.3)
                assert estimate.played == played and estimate.best in view.legal_moves()
                assert estimate.difference >= 0
                # a secret the server does not know opens nothing
                with pytest.raises(ComputerError, match="cannot be reached"):
                    await ComputerClient(channel.path, new_secret()).choose(view, "easy", 1)
                await client.close()
        finally:
            pool.shutdown()

    run(go())


def test_two_requests_at_once_per_session_and_the_end_of_a_session_drops_them(
        tmp_path: Path) -> None:
    view = a_view()

    async def go() -> None:
        pool = GatedPool()
        async with Channel(tmp_path, pool) as channel:
            ann, bob = channel.client(ANN), channel.client(BOB)
            waiting = [asyncio.ensure_future(ann.choose(view, "easy", i))
                       for i in range(MAX_IN_FLIGHT)]
            while pool.asked < MAX_IN_FLIGHT:
                await asyncio.sleep(0.01)
            with pytest.raises(ComputerError, match=f"at most {MAX_IN_FLIGHT}"):
                await ann.choose(view, "easy", 9)
            bobs = asyncio.ensure_future(bob.choose(view, "easy", 1))  # Bob is not held up
            while pool.asked < MAX_IN_FLIGHT + 1:
                await asyncio.sleep(0.01)
            assert channel.service.in_flight(ANN) == MAX_IN_FLIGHT
            # a request Ann's game stops waiting for (the screen closed) no longer counts
            waiting[0].cancel()
            while channel.service.in_flight(ANN) == MAX_IN_FLIGHT:
                await asyncio.sleep(0.01)
            waiting[0] = asyncio.ensure_future(ann.choose(view, "easy", 7))
            while pool.asked < MAX_IN_FLIGHT + 2:
                await asyncio.sleep(0.01)
            assert channel.service.in_flight(ANN) == MAX_IN_FLIGHT
            # Ann's session ends: her requests are dropped, her app hears of it at once
            channel.service.end_session(channel.secrets[ANN])
            for request in waiting:
                with pytest.raises(ComputerError, match="dropped"):
                    await request
            assert ANN in pool.dropped and channel.service.in_flight(ANN) == 0
            pool.gate.set()
            assert await bobs == view.legal_moves()[0]
            with pytest.raises(ComputerError, match="cannot be reached"):
                await ann.choose(view, "easy", 1)  # her secret no longer opens the channel
            await bob.close()

    run(go())


def test_a_session_that_sends_garbage_is_cut_off_and_nobody_else(tmp_path: Path) -> None:
    view = a_view()

    async def go() -> None:
        pool = GatedPool()
        pool.gate.set()
        async with Channel(tmp_path, pool) as channel:
            raw = await WireClient.connect(channel.path, channel.secrets[ANN],
                                           max_frame=MAX_REQUEST)
            good = seat_view_to_json(view)
            for message in ({"type": "think", "id": 1, "op": "steal", "view": good},
                            {"type": "think", "id": 2, "op": "choose", "view": good,
                             "level": "hard-v1", "seed": 1},
                            {"type": "think", "id": 3, "op": "choose", "view": {"x": 1},
                             "level": "easy", "seed": 1}):
                await raw.send(message)
                answer = await raw.receive()
                assert answer is not None and answer["type"] == "refused"
                assert answer["kind"] == "request" and answer["id"] == message["id"]
            assert await raw.receive() is None  # the third: cut off
            # a frame over the size limit closes the connection too
            raw2 = await WireClient.connect(channel.path, channel.secrets[ANN],
                                            max_frame=MAX_REQUEST)
            assert raw2._writer is not None
            raw2._writer.write(encode({"type": "think", "pad": "x" * MAX_REQUEST},
                                      max_size=2 * MAX_REQUEST))
            answer = await raw2.receive()
            assert answer is not None and answer["type"] == "error"
            assert await raw2.receive() is None
            # Bob is answered all along
            bob = channel.client(BOB)
            assert await bob.choose(view, "easy", 1) in view.legal_moves()
            await bob.close()

    run(go())


def test_an_app_without_the_pool_plays_on_with_a_random_move_and_says_so(
        tmp_path: Path) -> None:
    """The pool's channel is gone (the server stopped it): the computer's turn does not
    freeze, it plays a random legal move and the log says why."""
    env = computers_environment(tmp_path / "computers" / "pool.sock", new_secret())
    assert set(env) == {SOCKET_ENV, SECRET_ENV}
    chooser = PoolChooser.from_environment(env)
    assert chooser is not None and PoolChooser.from_environment({}) is None
    ctl = TableController(GameConfig(seats=default_seats(2, humans=0), seed=3))
    turn = ctl.computer_turn()
    assert turn is not None

    async def go() -> None:
        chooser.start()
        move = await asyncio.wait_for(ctl.think(turn, chooser), 10)
        assert move in turn.view.legal_moves()
        with pytest.raises(ComputerError):
            await chooser.hint(turn.view, 1)
        chooser.shutdown()

    run(go())
    notes = [e.text for e in ctl.events if e.kind == "note"]
    assert notes and "computer players cannot be reached" in notes[-1]
    assert notes[-1].endswith("it played a random move")


def test_the_pool_refusing_reaches_the_app_as_a_clear_error(tmp_path: Path) -> None:
    class Refusing(GatedPool):
        async def choose(self, view: SeatView, level: str, seed: int, *,
                         client: Hashable = None, budget: float | None = None) -> Move:
            raise PoolRefused("the computer player's process crashed")

    async def go() -> None:
        async with Channel(tmp_path, Refusing()) as channel:
            client = channel.client(ANN)
            with pytest.raises(ComputerError, match="process crashed"):
                await client.choose(a_view(), "hard", 1)
            await client.close()

    run(go())


def test_the_app_asks_the_pool_under_a_server_and_its_own_worker_at_home(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from casino_tui.app.app import CasinoApp
    from casino_tui.app.players import WorkerChooser

    monkeypatch.delenv(SOCKET_ENV, raising=False)
    monkeypatch.delenv(SECRET_ENV, raising=False)
    at_home = CasinoApp(save_settings_to_disk=False).chooser()
    assert isinstance(at_home, WorkerChooser)
    for name, value in computers_environment(tmp_path / "pool.sock", new_secret()).items():
        monkeypatch.setenv(name, value)
    served = CasinoApp(save_settings_to_disk=False).chooser()
    assert isinstance(served, PoolChooser) and not served.in_process


def test_the_games_side_of_the_channel_does_not_import_the_computer_players() -> None:
    """A session's game asks the pool: it need not load the search code (memory, start-up)."""
    import subprocess
    import sys

    code = ("import sys, casino_tui.app.players, casino_tui.table.computers; "
            "print(sorted(m for m in sys.modules if m.startswith('casino_tui.ai')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip() == "[]"


def test_a_hard_computer_at_a_table_and_a_solo_easy_game_are_on_time_in_a_saturated_pool(
        tmp_path: Path) -> None:
    """The server's arrangement: the hub's computers and the sessions' games share one pool
    (one search process here), saturated by eight sessions asking Hard moves without a pause.
    A solo game's Easy move comes at once, and the table's Hard computer moves within its
    second (the wait in the queue counts: out of time, Medium's move)."""
    from casino_tui.table import SeatConfig
    from casino_tui.table.hub import LocalHub, Person

    big = State(Rules.preset("classic"), 4, seed=0)
    assert big.current_player is not None
    busy_view = big.view(big.current_player)

    async def go() -> None:
        pool = ComputerPool(workers=1, fast_workers=1)
        await pool.start()
        hub = LocalHub(pool)
        try:
            async with Channel(tmp_path, pool) as channel:
                crowd = []
                for n in range(8):
                    who = Identity(f"busy-{n}", f"SHA256:busy{n}", 10 + n)
                    secret = new_secret()
                    channel.service.register(secret, who)
                    client = ComputerClient(channel.path, secret)
                    crowd.append(asyncio.ensure_future(client.choose(busy_view, "hard", n)))
                while pool.stats().waiting_search < 6:
                    await asyncio.sleep(0.01)
                ann = Person("player-ann", "Ann")
                seats = (SeatConfig("Ann", True), SeatConfig("North", False, "hard"))
                info = await hub.create_table(GameConfig(players=2, seats=seats, seed=3), ann)
                ctl = hub.controller(info.table_id)
                started = asyncio.get_running_loop().time()
                await hub.start(info.table_id, ann)
                if ctl.to_move == 0:  # Ann first: her move, then the computer's
                    view = await hub.snapshot(info.table_id, ann)
                    started = asyncio.get_running_loop().time()
                    await hub.submit_move(info.table_id, ann, 0,
                                          view.seat_view().legal_moves()[0])
                saturated = pool.stats().waiting_search
                solo = channel.client(BOB)
                t = asyncio.get_running_loop().time()
                assert await solo.choose(a_view(), "easy", 1) in a_view().legal_moves()
                easy_time = asyncio.get_running_loop().time() - t
                await hub.idle(info.table_id)
                table_time = asyncio.get_running_loop().time() - started
                assert ctl.to_move == 0 and any(e.kind == "move" and e.seat == 1
                                                for e in ctl.events)
                notes = [e.text for e in ctl.events if e.kind == "note"]
                assert not any("failed" in n for n in notes), notes  # no failed computer
                assert easy_time < 1.0
                assert table_time < 2.0  # one second of Hard, with room for a busy machine
                assert saturated >= 4  # the computer's turn came with the pool saturated
                for move in await asyncio.gather(*crowd):
                    assert move in busy_view.legal_moves()
                await solo.close()
        finally:
            hub.shutdown()
            pool.shutdown()

    run(go())
