"""Tables across hosts through one PostgreSQL, measured (``python -m benchmarks.store_tables
URL``; the URL of an empty database, or ``--throwaway`` for a cluster of its own, as the tests
start one): ``--tables`` tables of two (default 10) across three hosts (``PgHub`` instances
in this process, each with its own connections), the two players of every table on two
different hosts, the table run by a third host when there is one. Each move is a person's
(a random legal one, sent at a person's ``--pace``); measured: from the call that plays it to
its event in the other player's subscription (on another host). Then the host that runs the
tables is abandoned (as kill -9 leaves it) and the time until every table has a new owner is
measured, with the lease of a served host (8 s) unless ``--lease`` says otherwise.

What is not measured here: the SSH sessions and the screens (benchmarks/load.py does those
on one server).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import random
import statistics
import sys
import time
from pathlib import Path

from casino_tui.store.db import connect, migrate
from casino_tui.store.tables import SCHEMA, PgHub
from casino_tui.table import GameConfig, SeatConfig
from casino_tui.table.hub import Person, Subscription


class _NoComputers:
    async def choose(self, view: object, level: str, seed: int) -> object:  # pragma: no cover
        raise RuntimeError("no computer plays in this benchmark")


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


async def _table(hubs: list[PgHub], i: int, moves: int, pace: float,
                 latencies: list[float], rng: random.Random) -> str:
    owner, first, second = hubs[i % 3], hubs[(i + 1) % 3], hubs[(i + 2) % 3]
    ann, bob = Person(f"ann-{i}", "Ann"), Person(f"bob-{i}", "Bob")
    seats = (SeatConfig("South", True), SeatConfig("North", True))
    info = await owner.create_table(GameConfig(players=2, seats=seats, seed=i + 1), ann)
    tid = info.table_id
    await owner.join(info.code, bob)
    await owner.take_seat(tid, bob)
    await owner.start(tid, ann)
    people = {0: (first, ann), 1: (second, bob)}
    subs: dict[int, Subscription] = {s: await h.subscribe(tid, p, 0) for s, (h, p) in
                                     people.items()}
    for _ in range(moves):
        view = await first.snapshot(tid, ann)
        if view.to_move is None:
            break
        hub, person = people[view.to_move]
        other = subs[1 - view.to_move]
        mine = await hub.snapshot(tid, person)
        move = rng.choice(mine.seat_view().legal_moves())
        await asyncio.sleep(rng.uniform(0, pace))
        other.ready()  # what came before
        sent = time.perf_counter()
        events = await hub.submit_move(tid, person, view.to_move, move)
        while True:
            event = await asyncio.wait_for(other.next(), 30)
            if event.number >= events[0].number:
                break
        latencies.append(time.perf_counter() - sent)
    return tid


async def main(url: str, tables: int, moves: int, pace: float, lease: float) -> None:
    conn = await connect(url)
    await migrate(conn, [SCHEMA])
    await conn.close()
    hubs = []
    for name in "ABC":
        hub = PgHub(url, _NoComputers(), host=f"bench-{name}", lease=lease)  # type: ignore[arg-type]
        await hub.open()
        hubs.append(hub)
    rng = random.Random(1)
    latencies: list[float] = []
    started = time.perf_counter()
    ids = await asyncio.gather(*(_table(hubs, i, moves, pace, latencies, rng)
                                 for i in range(tables)))
    took = time.perf_counter() - started
    load = os.getloadavg()
    print(f"{tables} tables of two across 3 hosts, {len(latencies)} moves in {took:.1f} s "
          f"(load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})")
    print(f"a move to the other player's subscription on another host: median "
          f"{statistics.median(latencies) * 1000:.1f} ms, p95 {_pct(latencies, 0.95) * 1000:.1f} "
          f"ms, max {max(latencies) * 1000:.1f} ms")
    # the host that runs a third of the tables dies
    victim = hubs[0]
    theirs = [t for t in ids if victim.owns(t)]
    victim.abandon()
    killed = time.perf_counter()
    while any(not (hubs[1].owns(t) or hubs[2].owns(t)) for t in theirs):
        await asyncio.sleep(0.02)
    print(f"host A killed: its {len(theirs)} tables run by another host after "
          f"{time.perf_counter() - killed:.2f} s (lease {lease:g} s, scans every "
          f"{hubs[1].scan:g} s)")
    for hub in hubs[1:]:
        await hub.aclose()


def run(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.store_tables")
    parser.add_argument("url", nargs="?", help="an empty PostgreSQL database")
    parser.add_argument("--throwaway", action="store_true",
                        help="start a PostgreSQL cluster of its own (as the tests do)")
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--moves", type=int, default=20, help="moves per table")
    parser.add_argument("--pace", type=float, default=0.5,
                        help="seconds a person may take to move (random, up to this)")
    parser.add_argument("--lease", type=float, default=8.0)
    args = parser.parse_args(argv)
    cluster = None
    url = args.url
    if args.throwaway:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
        pg_support = importlib.import_module("pg_support")  # the tests' throwaway cluster

        cluster = pg_support.PgCluster().start()
        url = cluster.database()
    if not url:
        parser.error("give a database URL or --throwaway")
    try:
        asyncio.run(main(url, args.tables, args.moves, args.pace, args.lease))
    finally:
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    run()
