"""Tables across hosts through one PostgreSQL (casino_tui/store/tables.py): several PgHub
instances, each a host, on one real database. A table created on one host is joined by its
code from another; a whole round is played with the seats on two hosts; what each seat and a
spectator receive holds no other hand; the owner dies mid-round and another host takes the
table over at the same position; an owner stopped past its lease and resumed writes
nothing."""

from __future__ import annotations

import asyncio
import random
import time

import pytest
from table_support import Recorder, SeededThinker

from casino_tui.store.db import connect, migrate
from casino_tui.store.tables import SCHEMA, PgHub, PgSubscription
from casino_tui.table import GameConfig, SeatConfig
from casino_tui.table.controller import TableController
from casino_tui.table.hub import HubError, Person, UnknownCode

ANN, BOB, EVE = Person("key-ann", "Ann"), Person("key-bob", "Bob"), Person("key-eve", "Eve")


def two_people(seed: int = 11, target: int = 21) -> GameConfig:
    return GameConfig(players=2, seats=(SeatConfig("South", True), SeatConfig("North", True)),
                      target=target, seed=seed)


async def prepared(url: str) -> None:
    conn = await connect(url)
    try:
        await migrate(conn, [SCHEMA])
    finally:
        await conn.close()


async def hosts(url: str, n: int, lease: float = 2.0) -> list[PgHub]:
    await prepared(url)
    out = []
    for i in range(n):
        hub = PgHub(url, SeededThinker(), host=f"host-{'ABC'[i]}", lease=lease, renew=0.5,
                    scan=0.3, poll=0.3, call_timeout=8.0)
        await hub.open()
        out.append(hub)
    return out


def owner_controller(hubs: list[PgHub], table_id: str) -> TableController:
    for hub in hubs:
        if hub.owns(table_id):
            return hub.local.controller(table_id)
    raise AssertionError("no host owns the table")


async def closing(hubs: list[PgHub]) -> None:
    for hub in hubs:
        await hub.aclose()


def test_a_table_made_on_one_host_is_played_from_two(pg_url: str) -> None:
    """Ann creates a table on host A; Bob finds and joins it by its code on host B, takes
    the second seat; Eve watches from B. A whole round is played, each person through their
    own host; each subscription gets every event, in order, filtered for its audience."""

    async def main() -> None:
        a, b = await hosts(pg_url, 2)
        try:
            info = await a.create_table(two_people(), ANN, public=False)
            tid = info.table_id
            assert a.owns(tid) and not b.owns(tid) and info.your_seat == 0 and info.yours
            assert [t.table_id for t in await b.list_tables(BOB)] == []  # private
            with pytest.raises(UnknownCode):
                await b.find("BABABA" if info.code != "BABABA" else "BEBEBE")
            found = await b.find(info.code.lower())
            assert found.table_id == tid and found.open_seats == 1
            joined = await b.join(info.code, BOB)
            assert joined.table_id == tid
            assert await b.take_seat(tid, BOB) == 1
            with pytest.raises(HubError, match="private"):
                await b.spectate(tid, EVE)
            await b.join(info.code, EVE)
            assert (await b.spectate(tid, EVE)).seat is None
            listed = await b.list_tables(BOB)
            assert [(t.table_id, t.your_seat, t.yours) for t in listed] == [(tid, 1, False)]
            with pytest.raises(HubError, match="creator"):
                await b.start(tid, BOB)
            await a.start(tid, ANN)

            ctl = a.local.controller(tid)
            rec = Recorder(ctl.state, (0, 1, None))
            people = {0: (a, ANN), 1: (b, BOB), None: (b, EVE)}
            subs: dict[int | None, PgSubscription] = {}
            got: dict[int | None, list[int]] = {0: [], 1: [], None: []}
            for who, (hub, person) in people.items():
                view = await hub.snapshot(tid, person)
                assert view.seat == who
                rec.send(who, view.to_json())
                sub = await hub.subscribe(tid, person, 0)
                assert isinstance(sub, PgSubscription)
                subs[who] = sub

            def take() -> None:
                for who, sub in subs.items():
                    assert not sub.lost, sub.reason
                    for event in sub.ready():
                        got[who].append(event.number)
                        rec.send(who, event.to_json())

            rng = random.Random(5)
            while not ctl.round_over and not ctl.game_over:
                seat = ctl.to_move
                assert seat is not None
                hub, person = people[seat]
                view = await hub.snapshot(tid, person)
                for who, (h, p) in people.items():  # every view, as each host gives it
                    rec.send(who, (await h.snapshot(tid, p)).to_json())
                move = rng.choice(view.seat_view().legal_moves())
                events = await hub.submit_move(tid, person, seat, move)
                assert events and events[0].kind == "move"
                for event in events:
                    rec.send(seat, event.to_json())
                take()
                rec.state = ctl.state
            await a.idle(tid)
            end = time.monotonic() + 10
            while any(not got[w] or got[w][-1] < ctl.number for w in got):
                assert time.monotonic() < end, (got, ctl.number)
                await asyncio.sleep(0.05)
                take()
            for who in got:
                assert got[who] == list(range(1, ctl.number + 1)), who
            rec.state = ctl.state
            rec.check()
            assert ctl.round_over or ctl.game_over
            # the round's end is seen from both hosts, and the listing says where it stands
            for hub, person in (people[0], people[1]):
                assert (await hub.snapshot(tid, person)).summary is not None
            listed = await a.list_tables(ANN)
            assert listed[0].round_no == ctl.state.round_no
            assert listed[0].scores == tuple(ctl.state.scores)
        finally:
            await closing([a, b])

    asyncio.run(main())
