"""``casino-tui serve --store URL`` runs its tables in the shared store (a PgHub, see
tests/test_store_tables.py for the hub itself): two servers on one PostgreSQL, each player's
game speaking to their own server over the table channel as always. Ann creates a table on
server A, Bob joins it by its code on server B; they play; A stops, its lease is given up,
B takes the table over at once, and both finish the round through B."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from casino_tui.serve.config import ServeConfig
from casino_tui.serve.server import GameServer
from casino_tui.store.tables import PgHub
from casino_tui.table import GameConfig, SeatConfig
from casino_tui.table.hub import Person
from casino_tui.table.remote import RemoteHub, hub_from_environment


async def _app(server: GameServer, number: int, fingerprint: str) -> RemoteHub:
    """The table channel as the game of a session of ``fingerprint`` on ``server`` has it."""
    env: dict[str, str] = {}
    assert server._table_secret(number, fingerprint, env) is not None
    hub = await hub_from_environment(env)
    assert hub is not None
    return hub


async def _move(hub: RemoteHub, me: Person, table_id: str, rng: random.Random) -> None:
    view = await hub.snapshot(table_id, me)
    assert view.seat is not None and view.to_move == view.seat
    await hub.submit_move(table_id, me, view.seat, rng.choice(view.seat_view().legal_moves()))


def test_two_servers_share_their_tables_through_the_store(tmp_path: Path, pg_url: str) -> None:
    async def main() -> None:
        a = GameServer(ServeConfig(data_dir=tmp_path / "a", port=0, store=pg_url,
                                   host_name="server-A", computers=0, fork_server=False))
        b = GameServer(ServeConfig(data_dir=tmp_path / "b", port=0, store=pg_url,
                                   host_name="server-B", computers=0, fork_server=False))
        await a.start()
        await b.start()
        try:
            assert isinstance(a.hub, PgHub) and isinstance(b.hub, PgHub)
            ann_app = await _app(a, 1, "SHA256:ann")
            bob_app = await _app(b, 2, "SHA256:bob")
            ann, bob = Person("", "Ann"), Person("", "Bob")
            seats = (SeatConfig("South", True), SeatConfig("North", True))
            info = await ann_app.create_table(GameConfig(players=2, seats=seats, seed=8), ann)
            tid = info.table_id
            assert a.hub.owns(tid)
            assert (await bob_app.join(info.code, bob)).table_id == tid
            assert await bob_app.take_seat(tid, bob) == 1
            await ann_app.start(tid, ann)
            sub = await bob_app.subscribe(tid, bob, 0)
            apps = {0: (ann_app, ann), 1: (bob_app, bob)}
            rng = random.Random(2)
            for _ in range(4):
                view = await ann_app.snapshot(tid, ann)
                assert view.to_move is not None
                await _move(*apps[view.to_move], tid, rng)
            first = await asyncio.wait_for(sub.next(), 10)
            assert first.number == 1
            history = len(a.hub.local.controller(tid).state.history)
            assert history == 4

            await ann_app.close()
            await a.close()  # its leases are given up: B takes the table over at once
            for _ in range(100):
                if b.hub.owns(tid):
                    break
                await asyncio.sleep(0.1)
            assert b.hub.owns(tid)
            ctl = b.hub.local.controller(tid)
            assert len(ctl.state.history) == history
            ann_app = await _app(b, 3, "SHA256:ann")  # Ann logs in again, on B
            assert await ann_app.come_back(tid, ann) == 0
            apps = {0: (ann_app, ann), 1: (bob_app, bob)}
            while not ctl.round_over and not ctl.game_over:
                assert ctl.to_move is not None
                await _move(*apps[ctl.to_move], tid, rng)
            assert (await bob_app.snapshot(tid, bob)).summary is not None
            assert [t.table_id for t in await ann_app.list_tables(ann)] == [tid]
            await ann_app.close()
            await bob_app.close()
        finally:
            await a.close()
            await b.close()

    asyncio.run(asyncio.wait_for(main(), 120))
