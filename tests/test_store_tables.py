"""Tables across hosts through one PostgreSQL (casino_tui/store/tables.py): several PgHub
instances, each a host, on one real database. A table created on one host is joined by its
code from another; a whole round is played with the seats on two hosts; what each seat and a
spectator receive holds no other hand; the owner dies mid-round and another host takes the
table over at the same position; an owner stopped past its lease and resumed writes
nothing."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import re
import time
from pathlib import Path

import pytest
from pg_support import PgCluster
from table_support import Recorder, SeededThinker

from casino_tui.saves import SaveStore
from casino_tui.store.db import connect, migrate
from casino_tui.store.docs import load_document
from casino_tui.store.tables import SCHEMA, PgHub, PgSubscription, import_table_saves
from casino_tui.table import GameConfig, SeatConfig
from casino_tui.table.client import SeatClient
from casino_tui.table.events import TableEvent
from casino_tui.table.hub import HubError, LocalHub, Person, UnknownCode

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


async def hosts(url: str, n: int, lease: float = 2.0, names: str = "ABC") -> list[PgHub]:
    await prepared(url)
    out = []
    for i in range(n):
        hub = PgHub(url, SeededThinker(), host=f"host-{names[i]}", lease=lease, renew=0.5,
                    scan=0.3, poll=0.3, call_timeout=8.0)
        await hub.open()
        out.append(hub)
    return out


async def started_table(a: PgHub, b: PgHub, seed: int) -> str:
    """A two-person table made on host ``a`` by Ann, Bob seated from host ``b``, started by
    Ann: its id."""
    info = await a.create_table(two_people(seed=seed), ANN)
    await b.join(info.code, BOB)
    await b.take_seat(info.table_id, BOB)
    await a.start(info.table_id, ANN)
    return info.table_id


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


async def play(hub: PgHub, person: Person, table_id: str, rng: random.Random) -> int:
    """One legal move of ``person``'s seat through ``hub``; returns the seat."""
    view = await hub.snapshot(table_id, person)
    assert view.seat is not None and view.to_move == view.seat
    await hub.submit_move(table_id, person, view.seat, rng.choice(view.seat_view().legal_moves()))
    return view.seat


def test_a_host_killed_mid_round_another_takes_the_table_over(pg_url: str) -> None:
    """Three hosts; Ann's table is run by host A, Bob plays from B. A dies mid-round
    (abandoned as kill -9 leaves it: no last write, its lease runs out); a move Bob sends
    meanwhile waits for the new owner. Within the lease and a scan, another host has taken
    the table over at the same position; Bob's subscription says so (new numbering); Ann,
    back through host C, finds her seat as it was; the round finishes; every move that was
    acknowledged is in the game once."""

    async def main() -> None:
        a, b, c = await hosts(pg_url, 3)
        try:
            tid = await started_table(a, b, seed=4)
            sub = await b.subscribe(tid, BOB, 0)
            seat_client = SeatClient(b, tid, BOB)  # Bob's game, as the app follows it
            opened = await seat_client.open()
            assert opened.fresh and opened.view.seat == 1
            rng = random.Random(9)
            who = {0: (a, ANN), 1: (b, BOB)}
            ctl = a.local.controller(tid)
            acked = 0
            for _ in range(5):
                seat = ctl.to_move
                assert seat is not None
                await play(*who[seat], tid, rng)
                acked += 1
            ann_before = await a.snapshot(tid, ANN)
            bob_before = await b.snapshot(tid, BOB)
            history = list(ctl.state.history)
            if ctl.to_move == 0:  # Bob is to move when A dies
                await play(a, ANN, tid, rng)
                acked += 1
                ann_before = await a.snapshot(tid, ANN)
                bob_before = await b.snapshot(tid, BOB)
                history = list(ctl.state.history)
            assert len(history) == acked

            await a.idle(tid)
            while seat_client.number < ctl.number:  # Bob's game has seen every move
                await asyncio.wait_for(seat_client.next_update(), 10)
            waiting = asyncio.ensure_future(seat_client.next_update())
            await asyncio.sleep(0.05)
            a.abandon()
            killed = time.monotonic()
            await play(b, BOB, tid, rng)  # sent to a table whose owner is dead: it waits
            acked += 1
            took = time.monotonic() - killed
            owner = next(h for h in (b, c) if h.owns(tid))
            assert took < a.lease + 3, took  # within the lease (2 s here; 8 s served) + a scan
            assert owner.takeovers == 1
            new = owner.local.controller(tid)
            assert list(new.state.history[:len(history)]) == history
            assert len(new.state.history) == acked  # Bob's move applied once

            # Bob's subscription is of the old numbering: lost, with the reason
            end = time.monotonic() + 5
            while not sub.lost:
                assert time.monotonic() < end
                await asyncio.sleep(0.05)
            sub.ready()
            with pytest.raises(HubError, match="taken over"):
                await sub.next()
            # ... and Bob, who follows it from B, is not taken for away by the new owner
            end = time.monotonic() + 5
            while new.seats[1].away_since is not None:
                assert time.monotonic() < end, "Bob is still away"
                await asyncio.sleep(0.05)

            # Bob's game, waiting for the next event, sees the table afresh (new numbering).
            # Before that it may have had one update with nothing new: when a snapshot was
            # ahead of the events, the game fetched them, and their own delivery by the
            # subscription, still queued, then comes as events already taken.
            update = await asyncio.wait_for(waiting, 10)
            while not update.fresh:
                assert update.events == () and update.view.number == ctl.number, update
                update = await asyncio.wait_for(seat_client.next_update(), 10)
            assert update.fresh and update.view.epoch != opened.view.epoch
            assert update.view.seat == 1 and set(update.view.hand) <= set(bob_before.hand)
            seat_client.close()

            # Ann comes back through host C: her seat, her hand, as she left them
            ann = await c.snapshot(tid, ANN)
            assert ann.seat == 0 and ann.epoch != ann_before.epoch
            assert {c_ for c_ in ann.hand} == set(ann_before.hand)
            assert await c.come_back(tid, ANN) == 0
            bob = await b.snapshot(tid, BOB)
            assert len(bob.hand) == len(bob_before.hand) - 1 and bob.to_move == 0
            fresh = await b.subscribe(tid, BOB, bob.number)
            who = {0: (c, ANN), 1: (b, BOB)}
            while not new.round_over and not new.game_over:
                seat = new.to_move
                assert seat is not None
                await play(*who[seat], tid, rng)
                acked += 1
            assert len(new.state.history) == acked
            assert (await c.snapshot(tid, ANN)).summary is not None
            await owner.idle(tid)
            end = time.monotonic() + 5
            got: list[TableEvent] = []
            while not got or got[-1].number < new.number:
                assert time.monotonic() < end and not fresh.lost
                got.extend(fresh.ready())
                await asyncio.sleep(0.05)
            assert [e.number for e in got] == list(range(bob.number + 1, new.number + 1))
        finally:
            await closing([b, c])

    asyncio.run(main())


def test_an_owner_stopped_past_its_lease_writes_nothing_when_it_resumes(pg_url: str) -> None:
    """Host A owns the table and stops (as under SIGSTOP: no renewal, no notification read);
    B takes it over. When A goes on, its first write finds another epoch: A stops running
    the table, writes nothing (the saved game and the events are B's), and the move it was
    asked for is handed to B, which plays it once."""

    async def main() -> None:
        a, b = await hosts(pg_url, 2)
        try:
            tid = await started_table(a, b, seed=6)
            rng = random.Random(3)
            ctl = a.local.controller(tid)
            who = {0: (a, ANN), 1: (b, BOB)}
            while ctl.to_move != 0 or len(ctl.state.history) < 2:
                seat = ctl.to_move
                assert seat is not None
                await play(*who[seat], tid, rng)
            before = len(ctl.state.history)
            stale_epoch = ctl.epoch

            for task in a._tasks:  # A stops: nothing of it runs any more
                task.cancel()
            end = time.monotonic() + 10
            # B owns the table once it holds the lease, and has taken it over once its first
            # write (the events numbered anew, A's numbering gone) is in
            while not (b.owns(tid)
                       and b._owned[tid].events_epoch == b.local.controller(tid).epoch):
                assert time.monotonic() < end, "B did not take the table over"
                await asyncio.sleep(0.1)
            assert a.owns(tid)  # A does not know yet

            async def saved() -> tuple[str, int, str]:
                conn = await connect(pg_url)
                try:
                    row = await (await conn.execute(
                        "select t.owner, t.epoch, g.doc from casino_tables t join "
                        "casino_table_games g using (game_id) where t.table_id = %s",
                        (tid,))).fetchone()
                    assert row is not None
                    stale = await (await conn.execute(
                        "select count(*) from casino_table_events where table_id = %s "
                        "and events_epoch = %s", (tid, stale_epoch))).fetchone()
                    assert stale == (0,)
                    return str(row[0]), int(row[1]), str(row[2])
                finally:
                    await conn.close()

            owner, epoch, doc = await saved()
            assert (owner, epoch) == ("host-B", 2)
            # A resumes with a move of Ann's to play: its write is refused, the move goes to B
            a._start_tasks()
            started = time.monotonic()
            await play(a, ANN, tid, rng)
            assert time.monotonic() - started < 2
            assert not a.owns(tid)
            with pytest.raises(HubError):
                a.local.controller(tid)
            new = b.local.controller(tid)
            assert len(new.state.history) == before + 1
            owner2, epoch2, doc2 = await saved()
            assert (owner2, epoch2) == ("host-B", 2) and doc2 != doc
            assert len(load_document("g", doc2).state.history) == before + 1
            assert len(load_document("g", doc).state.history) == before
        finally:
            await closing([a, b])

    asyncio.run(main())


def test_a_servers_table_saves_are_imported_once_and_taken_over(pg_url: str,
                                                                tmp_path: Path) -> None:
    """A single server's tables (DATA/tables/games): one in play, one closed. The import
    brings every game's document and the open table's directory row; a second import changes
    nothing; a host then takes the table over at its saved position and it plays on."""

    async def main() -> None:
        games = tmp_path / "tables" / "games"
        local = LocalHub(SeededThinker(), SaveStore(games))
        info = await local.create_table(two_people(seed=2), ANN)
        tid = info.table_id
        await local.join(info.code, BOB)
        await local.take_seat(tid, BOB)
        await local.start(tid, ANN)
        rng = random.Random(1)
        ctl = local.controller(tid)
        for _ in range(3):
            seat = ctl.to_move
            assert seat is not None
            view = ctl.view_for(seat)
            await local.submit_move(tid, (ANN, BOB)[seat], seat,
                                    rng.choice(view.seat_view().legal_moves()))
        history = list(ctl.state.history)
        other = await local.create_table(two_people(seed=3), BOB)
        local._close(local._get(other.table_id))  # nobody came for a day
        local.shutdown()
        (games / "notes.json").write_text("not a save")

        await prepared(pg_url)
        conn = await connect(pg_url)
        try:
            assert await import_table_saves(conn, games) == {"tables": 1, "games": 2,
                                                             "skipped": 1}
            assert await import_table_saves(conn, games) == {"tables": 0, "games": 0,
                                                             "skipped": 1}
        finally:
            await conn.close()
        (hub,) = await hosts(pg_url, 1)
        try:
            assert await hub.find(info.code.lower()) is not None
            assert [t.table_id for t in await hub.list_tables(BOB)] == [tid]
            await hub.restore()  # (or its scan did, a moment before)
            assert hub.owns(tid) and hub.takeovers == 1
            assert list(hub.local.controller(tid).state.history) == history
            assert await hub.come_back(tid, ANN) == 0
            seat = hub.local.controller(tid).to_move
            assert seat is not None
            await play(hub, (ANN, BOB)[seat], tid, rng)
            assert len(hub.local.controller(tid).state.history) == len(history) + 1
        finally:
            await hub.aclose()

    asyncio.run(main())


def test_an_owner_process_stopped_with_sigstop_writes_nothing_when_continued(
        pg_url: str, tmp_path: Path) -> None:
    """Host A is a process of its own that runs Ann's table against a slow computer. Right
    after Ann's move (sent from host B), while A's computer thinks, A is stopped (SIGSTOP)
    past its lease; B takes the table over at Ann's move and its computer plays. A is then
    continued (SIGCONT): its computer's move, its renewal, find another epoch; A stops
    running the table and the store does not change at all."""
    import json
    import signal
    import subprocess
    import sys

    async def main() -> None:
        await prepared(pg_url)
        log = open(tmp_path / "host-a.log", "wb")  # noqa: SIM115 (closed below)
        proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("store_host.py")), pg_url,
             "host-A"], stdout=subprocess.PIPE, stderr=log)
        try:
            assert proc.stdout is not None
            line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 30)
            tid = json.loads(line)["table"]
            (b,) = await hosts(pg_url, 1, names="B")
            try:
                rng = random.Random(8)
                view = await b.snapshot(tid, ANN)
                while view.to_move != 0:
                    await asyncio.sleep(0.2)
                    view = await b.snapshot(tid, ANN)
                await play(b, ANN, tid, rng)  # acknowledged by A; A's computer thinks now
                os.kill(proc.pid, signal.SIGSTOP)
                stopped = time.monotonic()
                conn = await connect(pg_url)
                try:
                    stale = (await (await conn.execute(
                        "select events_epoch from casino_tables where table_id = %s",
                        (tid,))).fetchone() or [""])[0]
                    end = time.monotonic() + 10
                    while not b.owns(tid):
                        assert time.monotonic() < end, "B did not take the table over"
                        await asyncio.sleep(0.1)
                    assert time.monotonic() - stopped < 2 + 2
                    ctl = b.local.controller(tid)
                    await b.idle(tid)  # B's computer has played; Ann is to move
                    assert ctl.to_move == 0

                    async def store() -> tuple[object, ...]:
                        row = await (await conn.execute(
                            "select t.owner, t.epoch, t.updated, t.events_epoch, g.doc, "
                            "(select count(*) from casino_table_events e "
                            " where e.table_id = t.table_id), "
                            "(select count(*) from casino_table_events e "
                            " where e.table_id = t.table_id and e.events_epoch = %s) "
                            "from casino_tables t join casino_table_games g using (game_id) "
                            "where t.table_id = %s", (stale, tid))).fetchone()
                        assert row is not None
                        return tuple(row)

                    before = await store()
                    assert before[:2] == ("host-B", 2) and before[-1] == 0
                    os.kill(proc.pid, signal.SIGCONT)
                    await asyncio.sleep(2 * 1.5 + 1)  # A's computer move, renewals
                    assert await store() == before
                    text = (tmp_path / "host-a.log").read_text()
                    assert re.search("went to another host|run by another host now", text), \
                        text
                    # Ann plays on at B, where the table is
                    await play(b, ANN, tid, rng)
                finally:
                    await conn.close()
            finally:
                await b.aclose()
        finally:
            os.kill(proc.pid, signal.SIGCONT)
            proc.kill()
            proc.wait()
            log.close()

    asyncio.run(main())


def test_a_host_whose_notifications_break_catches_up_and_listens_again(
        pg_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """The connection on which host B listens is cut (the store restarted it): B's
    subscriber still gets Ann's move (the catch-up), B listens again, and the next move comes
    by notification."""

    async def main() -> None:
        a, b = await hosts(pg_url, 2)
        try:
            tid = await started_table(a, b, seed=5)
            sub = await b.subscribe(tid, BOB, 0)
            assert isinstance(sub, PgSubscription)
            conn = await connect(pg_url)
            try:
                cut = await (await conn.execute(
                    "select pg_terminate_backend(pid) from pg_stat_activity "
                    "where application_name = %s", (b._listening_as,))).fetchall()
                assert cut == [(True,)]
            finally:
                await conn.close()
            rng = random.Random(4)
            ctl = a.local.controller(tid)
            for _ in range(2):
                seat = ctl.to_move
                assert seat is not None
                await play(*{0: (a, ANN), 1: (b, BOB)}[seat], tid, rng)
                end = time.monotonic() + 5
                while sub.last < ctl.number:
                    assert time.monotonic() < end and not sub.lost
                    await asyncio.sleep(0.05)
                    sub.ready()
            end = time.monotonic() + 5
            while "notifications are back" not in caplog.text:
                assert time.monotonic() < end, caplog.text
                await asyncio.sleep(0.05)
        finally:
            await closing([a, b])

    caplog.set_level(logging.INFO, "casino_tui.store.tables")
    asyncio.run(main())


def test_the_store_paused_past_the_leases_and_back_the_table_plays_on(
        pg_cluster: PgCluster) -> None:
    """PostgreSQL stops answering (SIGSTOP) for longer than the leases, then comes back: a
    move sent meanwhile is refused or waits, nothing is lost or played twice, exactly one host
    runs the table afterwards and the game goes on from every move that was acknowledged."""
    url = pg_cluster.database()

    async def main() -> None:
        a, b = await hosts(url, 2)
        try:
            tid = await started_table(a, b, seed=9)
            rng = random.Random(6)
            who = {0: (a, ANN), 1: (b, BOB)}
            acked = 0
            for _ in range(2):
                seat = a.local.controller(tid).to_move
                assert seat is not None
                await play(*who[seat], tid, rng)
                acked += 1
            pg_cluster.pause()
            try:
                await asyncio.sleep(3)  # past the leases (2 s)
            finally:
                pg_cluster.resume()
            end = time.monotonic() + 15
            while True:  # one host runs it (the same, or the other after a takeover)
                owners = [h for h in (a, b) if h.owns(tid)]
                if len(owners) == 1:
                    break
                assert time.monotonic() < end, "no single owner"
                await asyncio.sleep(0.1)
            for _ in range(2):  # the game goes on, from any host
                while True:
                    ctl = next(h for h in (a, b) if h.owns(tid)).local.controller(tid)
                    view = await b.snapshot(tid, (ANN, BOB)[ctl.to_move or 0])
                    if view.to_move is not None:
                        break
                try:
                    await play(b, (ANN, BOB)[view.to_move], tid, rng)
                    acked += 1
                except HubError:  # the table moved while the move went: try again
                    continue
            owner = next(h for h in (a, b) if h.owns(tid))
            assert len(owner.local.controller(tid).state.history) == acked
        finally:
            await closing([a, b])

    asyncio.run(main())


def test_a_table_nobody_came_back_to_closes_for_every_host(pg_url: str) -> None:
    """The owner closes a table nobody has been at for a day: it is closed in the store,
    so no host lists it, finds its code or takes it over, and a call to it is refused."""
    now = [1000.0]

    async def main() -> None:
        await prepared(pg_url)
        a = PgHub(pg_url, SeededThinker(), host="host-A", lease=2.0, renew=0.5, scan=0.3,
                  poll=0.3, call_timeout=8.0, clock=lambda: now[0], keep_empty=100.0)
        await a.open()
        (b,) = await hosts(pg_url, 1, names="B")
        try:
            info = await a.create_table(two_people(), ANN)
            tid = info.table_id
            assert a.close_idle() == []
            await a.leave(tid, ANN)
            assert a.close_idle() == []  # empty since now
            now[0] += 101
            assert a.close_idle() == [tid]
            end = time.monotonic() + 5
            while a.owns(tid):
                assert time.monotonic() < end
                await asyncio.sleep(0.05)
            with pytest.raises(UnknownCode):
                await b.find(info.code)
            assert await b.list_tables(ANN) == []
            with pytest.raises(HubError, match="no such table"):
                await b.snapshot(tid, ANN)
            await asyncio.sleep(1)  # scans: nobody takes a closed table over
            assert not b.owns(tid) and b.takeovers == 0
        finally:
            await closing([a, b])

    asyncio.run(main())


def test_a_call_waiting_when_its_host_closes_is_told_not_cancelled(pg_url: str) -> None:
    """A host that closes while one of its calls waits for another host's answer tells the
    caller (HubError: the table channel refuses it and marks nobody away) rather than
    cancelling it (which the channel's connection task could not take as an answer)."""

    async def main() -> None:
        a, b = await hosts(pg_url, 2, lease=30.0)
        try:
            info = await a.create_table(two_people(seed=4), ANN)
            a.abandon()  # the owner is gone: nobody answers B's call
            call = asyncio.create_task(b.snapshot(info.table_id, ANN))
            await asyncio.sleep(0.5)  # the intent is left and waited for
            assert not call.done()
            await b.aclose()
            with pytest.raises(HubError, match="store is closed"):
                await call
        finally:
            await closing([b])

    asyncio.run(main())


def test_a_call_its_owner_died_doing_is_done_by_the_next_owner(pg_url: str) -> None:
    """Host A takes Bob's move to do and dies while doing it (kill -9: nothing of it is
    written, the call is left taken). The host that takes the table over does the call: Bob's
    move is answered within the lease and a scan, and played once."""

    async def main() -> None:
        a, b = await hosts(pg_url, 2)
        try:
            tid = await started_table(a, b, seed=4)
            rng = random.Random(5)
            ctl = a.local.controller(tid)
            who = {0: (a, ANN), 1: (b, BOB)}
            while ctl.to_move != 1:
                await play(*who[0], tid, rng)
            before = len(ctl.state.history)
            await a.idle(tid)
            real = a.local.submit_move

            async def dying(*args: object, **kwargs: object) -> object:
                a.abandon()  # A dies with the call taken, before any answer is written
                await asyncio.sleep(30)
                return await real(*args, **kwargs)  # type: ignore[arg-type]

            a.local.submit_move = dying  # type: ignore[method-assign]
            killed = time.monotonic()
            await play(b, BOB, tid, rng)
            assert time.monotonic() - killed < a.lease + 3
            assert b.owns(tid) and b.takeovers == 1
            assert len(b.local.controller(tid).state.history) == before + 1
        finally:
            await closing([a, b])

    asyncio.run(main())


def test_an_answer_the_store_did_not_take_is_written_with_the_next_flush(
        pg_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """Host A does Bob's move, and the store is away for the write of it: the move is
    written with A's next flush, and Bob's call is answered then (not left to time out)."""

    async def main() -> None:
        a, b = await hosts(pg_url, 2, lease=30.0)
        try:
            tid = await started_table(a, b, seed=4)
            rng = random.Random(5)
            ctl = a.local.controller(tid)
            while ctl.to_move != 1:
                await play(a, ANN, tid, rng)
            before = len(ctl.state.history)
            await a.idle(tid)
            real_move, real_conn = a.local.submit_move, a._conn
            away = {"writes": 0}

            async def moved(*args: object, **kwargs: object) -> object:
                events = await real_move(*args, **kwargs)  # type: ignore[arg-type]
                away["writes"] = 1  # the write of this move finds the store away
                return events

            def conn() -> object:
                if away["writes"]:
                    away["writes"] -= 1
                    raise HubError("the tables' store cannot be reached (test)")
                return real_conn()

            a.local.submit_move = moved  # type: ignore[method-assign]
            a._conn = conn  # type: ignore[method-assign]
            started = time.monotonic()
            with caplog.at_level(logging.WARNING, "casino_tui.store.tables"):
                await play(b, BOB, tid, rng)
            assert time.monotonic() - started < a.call_timeout
            assert "cannot be reached (test)" in caplog.text
            assert len(ctl.state.history) == before + 1
            conn = await connect(pg_url)
            try:
                row = await (await conn.execute(
                    "select g.doc from casino_tables t join casino_table_games g "
                    "using (game_id) where t.table_id = %s", (tid,))).fetchone()
            finally:
                await conn.close()
            assert row is not None
            assert len(load_document("g", row[0]).state.history) == before + 1
        finally:
            await closing([a, b])

    asyncio.run(main())
