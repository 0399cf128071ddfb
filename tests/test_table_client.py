"""One person's side of a hub's table (SeatClient): the table opened with its recent events;
the events taken in order, a duplicate skipped, a gap filled from the hub; a fresh view after
events that change the position and none after a chat line; a table whose events were numbered
anew (a restart) or a subscription that fell behind starts afresh; moves, chat and next round
sent for the person's own seat only."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from table_support import SeededThinker

from casino_tui.engine import Move
from casino_tui.table import GameConfig, MoveRefused, SeatConfig, TableEvent, TableView
from casino_tui.table import hub as hub_module
from casino_tui.table.client import SeatClient, TableUpdate
from casino_tui.table.hub import HubError, LocalHub, Person, Subscription

ANN = Person("key-ann", "Ann")
BOB = Person("key-bob", "Bob")
EVE = Person("key-eve", "Eve")


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def run(fn: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(fn())  # type: ignore[arg-type]


async def new_table(hub: LocalHub) -> str:
    config = GameConfig(players=2, seats=(SeatConfig("South", True), SeatConfig("North", True)),
                        seed=13)
    info = await hub.create_table(config, ANN)
    await hub.join(info.code, BOB)
    await hub.take_seat(info.table_id, BOB)
    await hub.start(info.table_id, ANN)
    return info.table_id


async def plays(hub: LocalHub, tid: str, person: Person) -> None:
    view = await hub.snapshot(tid, person)
    assert view.seat is not None
    await hub.submit_move(tid, person, view.seat, view.seat_view().legal_moves()[0])


async def update(client: SeatClient) -> TableUpdate:
    return await asyncio.wait_for(client.next_update(), 2)


class Counting(LocalHub):
    """A LocalHub that counts snapshots and can lose one event on its way (``drop``)."""

    snapshots = 0
    drop: int | None = None
    singly = False  # the subscription hands its events over one at a time (ready() has none)

    async def snapshot(self, table_id: str, person: Person) -> TableView:
        self.snapshots += 1
        return await super().snapshot(table_id, person)

    async def subscribe(self, table_id: str, person: Person, after: int) -> Subscription:
        return Dropping(self, await super().subscribe(table_id, person, after))


class Dropping:
    def __init__(self, hub: Counting, sub: Subscription) -> None:
        self.hub = hub
        self.sub = sub

    @property
    def lost(self) -> bool:
        return self.sub.lost

    def _keep(self, event: TableEvent) -> bool:
        if self.hub.drop == event.number:
            self.hub.drop = None
            return False
        return True

    async def next(self) -> TableEvent:
        while True:
            event = await self.sub.next()
            if self._keep(event):
                return event

    def ready(self) -> list[TableEvent]:
        if self.hub.singly:
            return []
        return [e for e in self.sub.ready() if self._keep(e)]

    def close(self) -> None:
        self.sub.close()


def test_open_shows_the_seat_and_the_events_before_it() -> None:
    async def go() -> None:
        hub = LocalHub(SeededThinker(), clock=Clock())
        tid = await new_table(hub)
        client = SeatClient(hub, tid, ANN, history=3)
        first = await client.open()
        ctl = hub.controller(tid)
        assert first.fresh and first.view.seat == 0 and client.seat == 0
        assert first.view.hand == tuple(ctl.state.hands[0])
        assert [e.number for e in first.events] == [ctl.number - 2, ctl.number - 1, ctl.number]
        assert client.number == ctl.number
        whole = await SeatClient(hub, tid, BOB).open()
        assert [e.number for e in whole.events] == list(range(1, ctl.number + 1))
        client.close()

    run(go)


def test_events_in_order_with_a_fresh_view_after_a_move_and_none_after_chat() -> None:
    async def go() -> None:
        hub = Counting(SeededThinker(), clock=Clock())
        tid = await new_table(hub)
        client = SeatClient(hub, tid, ANN)
        await client.open()
        before = hub.snapshots
        await hub.chat(tid, BOB, "hello")
        got = await update(client)
        assert [e.kind for e in got.events] == ["chat"] and hub.snapshots == before
        assert got.view.number == client.number == hub.controller(tid).number
        await client.submit(client.view.seat_view().legal_moves()[0])
        got = await update(client)
        assert [e.kind for e in got.events] == ["move"] and hub.snapshots == before + 1
        ctl = hub.controller(tid)
        assert got.view.hand == tuple(ctl.state.hands[0]) and got.view.to_move == 1
        await plays(hub, tid, BOB)
        got = await update(client)
        assert got.events[0].seat == 1 and got.view.to_move == 0
        assert got.view.number == ctl.number

    run(go)


def test_a_gap_is_filled_from_the_hub_and_a_duplicate_is_skipped() -> None:
    async def go() -> None:
        hub = Counting(SeededThinker(), clock=Clock())
        tid = await new_table(hub)
        client = SeatClient(hub, tid, ANN)
        await client.open()
        n = client.number
        hub.drop = n + 1  # the first chat line is lost on its way
        for text in ("one", "two", "three"):
            await hub.chat(tid, BOB, text)
        # "two" shows the gap: the hub's answer holds "one" to "three", so the "three" that
        # the subscription brings next is skipped
        got = await update(client)
        assert [(e.number, e.text) for e in got.events] == [
            (n + 1, "one"), (n + 2, "two"), (n + 3, "three")]
        assert client.number == n + 3 and got.view.number == n + 3
        await hub.chat(tid, BOB, "four")
        got = await update(client)
        assert [e.text for e in got.events] == ["four"]

    run(go)


def test_events_delivered_again_after_a_gap_make_no_update_of_their_own() -> None:
    """The hub's answer to a gap holds events the subscription brings again later, one batch
    at a time: those make no (empty) update; the next update is the next new event."""
    async def go() -> None:
        hub = Counting(SeededThinker(), clock=Clock())
        tid = await new_table(hub)
        client = SeatClient(hub, tid, ANN)
        await client.open()
        n = client.number
        hub.drop, hub.singly = n + 1, True
        for text in ("one", "two", "three"):
            await hub.chat(tid, BOB, text)
        got = await update(client)  # "two" shows the gap: the hub's answer, "one" to "three"
        assert [e.text for e in got.events] == ["one", "two", "three"]
        waiting = asyncio.ensure_future(client.next_update())
        for _ in range(5):
            await asyncio.sleep(0)
        assert not waiting.done()  # "three" came again: nothing new to show
        await hub.chat(tid, BOB, "four")
        got = await asyncio.wait_for(waiting, 2)
        assert [e.text for e in got.events] == ["four"] and not got.fresh
        assert client.number == n + 4 and got.view.number == n + 4

    run(go)


def test_events_numbered_anew_or_a_subscription_behind_start_afresh(
        monkeypatch: pytest.MonkeyPatch) -> None:
    async def go() -> None:
        hub = LocalHub(SeededThinker(), clock=Clock())
        tid = await new_table(hub)
        client = SeatClient(hub, tid, ANN)
        first = await client.open()
        ctl = hub.controller(tid)
        ctl.rebuild_events()  # as a table restored after a restart: a new epoch
        await plays(hub, tid, ANN)
        got = await update(client)
        assert got.fresh and got.view.epoch == ctl.epoch != first.view.epoch
        assert got.view.number == ctl.number and got.events[-1].kind == "move"
        monkeypatch.setattr(hub_module, "QUEUE_MAX", 2)
        for text in ("a", "b", "c", "d"):
            await hub.chat(tid, BOB, text)
        got = await update(client)  # too many waited: the subscription was lost
        assert got.fresh and [e.text for e in got.events[-4:]] == ["a", "b", "c", "d"]
        assert client.number == ctl.number

    run(go)


def test_intents_go_for_the_persons_own_seat_only() -> None:
    async def go() -> None:
        hub = LocalHub(SeededThinker(), clock=Clock())
        tid = await new_table(hub)
        bob = SeatClient(hub, tid, BOB)
        await bob.open()
        with pytest.raises(MoveRefused, match="Ann's turn"):
            await bob.submit(Move.trail(bob.view.hand[0]))
        eve = SeatClient(hub, tid, EVE, watch=True)
        opened = await eve.open()
        assert eve.seat is None and opened.view.hand == ()
        with pytest.raises(HubError, match="watching"):
            await eve.submit(Move.trail(bob.view.hand[0]))
        assert not hub.controller(tid).state.history
        await eve.next_round()  # a spectator is not waited for: nothing to say
        await eve.chat("hi from the rail")
        got = await update(eve)
        assert got.events[-1].text == "hi from the rail"
        await eve.leave()
        with pytest.raises(HubError):
            await eve.next_update()

    run(go)
