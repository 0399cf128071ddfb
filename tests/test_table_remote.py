"""The server's tables from the players' app processes: the hub service
(casino_tui.table.service) and RemoteHub (casino_tui.table.remote) over a real Unix socket.

Two people, each with their own identity, create a table, join it by its code, take seats,
start and play a whole round from their own seat's view; a third cannot act for a seat that is
not theirs; a dropped connection makes its person away for the others and brings them back at
the same position without a lost event; malformed requests are refused without breaking the
connection or the server; nothing hidden is ever sent to a seat or a spectator."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from table_support import Recipient, Recorder, SeededThinker

from casino_tui.ai import LEVELS
from casino_tui.saves import SaveStore
from casino_tui.table import GameConfig, MoveRefused, SeatConfig, TableEvent
from casino_tui.table.codec import move_to_json
from casino_tui.table.codes import spoken
from casino_tui.table.config import LEVELS as TABLE_LEVELS
from casino_tui.table.config import config_from_json, config_to_json
from casino_tui.table.hub import HubError, LocalHub, Person, Subscription, TableHub, TableInfo
from casino_tui.table.remote import (
    ConnectionLost,
    RemoteHub,
    RemoteSubscription,
    hub_from_environment,
)
from casino_tui.table.service import OPS, HubService
from casino_tui.table.wire import (
    Identity,
    Message,
    Refused,
    WireClient,
    new_secret,
    session_environment,
    socket_path,
)

ANN = Identity("player-ann", "SHA256:ann", 1)
BOB = Identity("player-bob", "SHA256:bob", 2)
EVE = Identity("player-eve", "SHA256:eve", 3)


def run(coro: Coroutine[Any, Any, None], timeout: float = 60) -> None:
    asyncio.run(asyncio.wait_for(coro, timeout))


async def until(predicate: Callable[[], object], what: str, timeout: float = 10) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


def two_people(seed: int = 13, preset: str = "classic") -> GameConfig:
    return GameConfig(preset=preset, players=2,
                      seats=(SeatConfig("South", True), SeatConfig("North", True)), seed=seed)


class Served:
    """A LocalHub served on a socket in ``tmp_path``; clients with identities of their own."""

    def __init__(self, tmp_path: Path, **wire_options: Any) -> None:
        self.hub = LocalHub(SeededThinker(), SaveStore(tmp_path / "games"))
        self.service = HubService(self.hub, **wire_options)
        self.path = socket_path(tmp_path)
        self.secrets: dict[Identity, str] = {}
        self.remotes: list[RemoteHub] = []

    async def __aenter__(self) -> Served:
        await self.service.start(self.path)
        return self

    async def __aexit__(self, *exc: object) -> None:
        for remote in self.remotes:
            await remote.close()
        await self.service.close()
        self.hub.shutdown()

    def secret(self, identity: Identity) -> str:
        if identity not in self.secrets:
            self.secrets[identity] = new_secret()
            self.service.register(self.secrets[identity], identity)
        return self.secrets[identity]

    async def client(self, identity: Identity, cls: type[WireClient] = WireClient) -> WireClient:
        return await cls.connect(self.path, self.secret(identity))

    async def remote(self, identity: Identity, cls: type[WireClient] = WireClient) -> RemoteHub:
        remote = RemoteHub(await self.client(identity, cls))
        self.remotes.append(remote)
        return remote


async def answer(client: WireClient, message: dict[str, Any]) -> Message:
    """Send a raw frame; the next frame that is not an event."""
    await client.send(message)
    while True:
        reply = await asyncio.wait_for(client.receive(), 5)
        assert reply is not None, "the server closed the connection"
        if reply.get("type") not in ("event", "part"):
            return reply


async def seated(served: Served, config: GameConfig | None = None
                 ) -> tuple[RemoteHub, RemoteHub, TableInfo]:
    """Ann creates a table, Bob joins it by its code (as read aloud) and sits."""
    ann, bob = await served.remote(ANN), await served.remote(BOB)
    info = await ann.create_table(config or two_people(), Person("ignored", "Ann"))
    joined = await bob.join(spoken(info.code), Person("ignored", "Bob"))
    assert joined.table_id == info.table_id and joined.spectators == 1
    assert await bob.take_seat(info.table_id, Person("ignored", "Bob")) == 1
    return ann, bob, info


async def play_round(players: dict[int, tuple[RemoteHub, Person]], table_id: str,
                     rng: random.Random, on_turn: Callable[[], Awaitable[None]] | None = None,
                     ) -> int:
    """The people play legal moves from their own views until the round is over; returns the
    number of moves they played."""
    moves = 0
    first = next(iter(players.values()))
    for _ in range(500):
        view = await first[0].snapshot(table_id, first[1])
        if view.summary is not None:
            return moves
        if view.to_move is None or view.to_move not in players:
            await asyncio.sleep(0.01)  # a computer thinks
            continue
        hub, person = players[view.to_move]
        mine = await hub.snapshot(table_id, person)
        assert mine.seat == view.to_move and mine.to_move == mine.seat
        move = rng.choice(mine.seat_view().legal_moves())
        events = await hub.submit_move(table_id, person, view.to_move, move)
        assert events and events[0].kind == "move" and events[0].seat == view.to_move
        moves += 1
        if on_turn is not None:
            await on_turn()
    raise AssertionError("the round did not end")


# ====================================================================== the interface
def test_the_remote_hub_is_a_table_hub(tmp_path: Path) -> None:
    async def main() -> None:
        async with Served(tmp_path) as served:
            hub: TableHub = await served.remote(ANN)  # mypy checks the whole interface
            sub: Subscription = RemoteSubscription(await served.remote(BOB), "t", "Bob", 0, "")
            assert isinstance(hub, RemoteHub) and not sub.lost
            assert hub.player == ANN.player

    run(main())


def test_configs_cross_the_channel_checked() -> None:
    config = GameConfig(preset="royal", players=4, target=11, seed=5, partnerships=False,
                        seats=(SeatConfig("Ann", True), SeatConfig("W", False, "hard"),
                               SeatConfig("N", True), SeatConfig("E", False, "easy")))
    assert config_from_json(config_to_json(config)) == config
    assert TABLE_LEVELS == LEVELS
    good = config_to_json(config)
    bad: object
    for bad in ({**good, "players": 7}, {**good, "players": True}, {**good, "seats": []},
                {**good, "seed": -1}, {**good, "target": 0}, {**good, "extra": 1},
                {**good, "seats": [{**s, "level": "god"} for s in good["seats"]]},
                {**good, "seats": [{**s, "name": "a\x1b[2J"} for s in good["seats"]]},
                {**good, "preset": ""}, [], None):
        with pytest.raises(ValueError):
            config_from_json(bad)


# ====================================================================== playing
def test_the_creator_starts_a_new_game_at_the_table_over_the_channel(tmp_path: Path) -> None:
    async def main() -> None:
        async with Served(tmp_path) as served:
            ann, bob, info = await seated(served, GameConfig(
                players=2, seats=(SeatConfig("South", True), SeatConfig("North", True)),
                seed=13, target=11))
            tid = info.table_id
            pa, pb = Person("x", "Ann"), Person("y", "Bob")
            await ann.start(tid, pa)
            local = {0: Person(ANN.player, "Ann"), 1: Person(BOB.player, "Bob")}
            ctl = served.hub.controller(tid)
            while not ctl.game_over:  # played in the server, by the seats' own people
                if ctl.round_over:
                    for person in local.values():
                        await served.hub.next_round(tid, person)
                    continue
                seat = ctl.to_move
                assert seat is not None
                view = await served.hub.snapshot(tid, local[seat])
                await served.hub.submit_move(tid, local[seat], seat,
                                             view.seat_view().legal_moves()[0])
            over = await bob.snapshot(tid, pb)
            assert over.creator_seat == 0 and over.game and over.summary is not None
            sub = await bob.subscribe(tid, pb, over.number)
            with pytest.raises(HubError, match="only the table's creator"):
                await bob.new_game(tid, pb)
            await ann.new_game(tid, pa)
            got: list[TableEvent] = []
            await until(lambda: got.extend(sub.ready()) or len(got) >= 2, "the new deal")
            assert got[0].kind == "note" and got[0].data["new_game"] == 2
            assert got[1].kind == "round_start" and got[1].number == over.number + 2
            fresh = await bob.snapshot(tid, pb)
            assert fresh.game != over.game and fresh.round_no == 1 and fresh.seat == 1
            assert fresh.scores == (0, 0) and len(fresh.hand) == 4

    run(main())


def test_two_people_play_a_whole_round_over_the_channel(tmp_path: Path) -> None:
    async def main() -> None:
        async with Served(tmp_path) as served:
            ann, bob, info = await seated(served)
            tid = info.table_id
            pa, pb = Person("whatever", "Ann"), Person("not-bob-either", "Bob")
            listed = await bob.list_tables(pb)
            assert [t.table_id for t in listed] == [tid]
            assert [s.holder for s in listed[0].seats] == ["Ann", "Bob"]
            # The server knows who is who, whatever id the person argument carries.
            assert served.hub.controller(tid).seats[1].name == "Bob"
            with pytest.raises(HubError, match="only the table's creator"):
                await bob.start(tid, pb)
            subs = {"ann": await ann.subscribe(tid, pa, 0), "bob": await bob.subscribe(tid, pb, 0)}
            await ann.start(tid, pa)
            moves = await play_round({0: (ann, pa), 1: (bob, pb)}, tid, random.Random(3))
            assert moves >= 8
            ctl = served.hub.controller(tid)
            assert ctl.round_over or ctl.game_over
            got: dict[str, list[TableEvent]] = {k: [] for k in subs}

            def received(k: str) -> int:
                got[k].extend(subs[k].ready())
                return len(got[k])

            await until(lambda: received("ann") == ctl.number and received("bob") == ctl.number,
                        "every event at both seats")
            for events in got.values():
                assert [e.number for e in events] == list(range(1, ctl.number + 1))
                assert sum(e.kind == "move" for e in events) == moves
                assert any(e.kind in ("round_over", "game_over") for e in events)
            a_view, b_view = await ann.snapshot(tid, pa), await bob.snapshot(tid, pb)
            assert a_view.summary is not None and a_view.seat == 0 and b_view.seat == 1
            assert a_view.number == b_view.number == ctl.number
            if ctl.round_over:  # both say they saw the summary: the next round is dealt
                await ann.next_round(tid, pa)
                await bob.next_round(tid, pb)
                assert (await ann.snapshot(tid, pa)).round_no == 2
            chat = await bob.chat(tid, pb, "gg [b]well[/b] \x1b[31m")
            assert chat.text == "gg [b]well[/b] \x1b[31m" and chat.data["who"] == "Bob"
            await until(lambda: any(e.kind == "chat" for e in subs["ann"].ready()), "chat")

    run(main())


def test_the_view_comes_with_the_events_so_a_seat_need_not_ask_for_it(tmp_path: Path) -> None:
    """After a move, the events pushed to a seat end with that seat's view (what a snapshot
    would give: its own hand only): the seat's client takes it without calling the server
    back, which saves a round trip on every move. Chat comes without a view."""
    from casino_tui.table.client import SeatClient

    async def main() -> None:
        async with Served(tmp_path) as served:
            ann, bob, info = await seated(served)
            tid = info.table_id
            pa, pb = Person(ANN.player, "Ann"), Person(BOB.player, "Bob")
            await ann.start(tid, pa)
            watcher = SeatClient(bob, tid, pb)
            await watcher.open()
            asked: list[str] = []
            snapshot = bob.snapshot

            async def counted(table_id: str, person: Person) -> Any:
                asked.append(table_id)
                return await snapshot(table_id, person)

            bob.snapshot = counted  # type: ignore[method-assign]
            for _ in range(4):
                view = await ann.snapshot(tid, pa)
                seat = view.to_move
                assert seat is not None
                owner, person = (ann, pa) if seat == 0 else (bob, pb)
                move = (await owner.snapshot(tid, person)).seat_view().legal_moves()[0]
                calls = len(asked)
                await owner.submit_move(tid, person, seat, move)
                update = await asyncio.wait_for(watcher.next_update(), 10)
                while update.view.number < served.hub.controller(tid).number:
                    update = await asyncio.wait_for(watcher.next_update(), 10)
                assert any(e.kind == "move" for e in update.events)
                if owner is ann:
                    assert len(asked) == calls, "the seat asked for a snapshot after a move"
                assert update.view == await snapshot(tid, pb)
                assert update.view.hand == tuple(served.hub.controller(tid).state.hands[1])
            await ann.chat(tid, pa, "hi")
            update = await asyncio.wait_for(watcher.next_update(), 10)
            assert [e.kind for e in update.events] == ["chat"]
            watcher.close()

    run(main())


def test_a_third_person_cannot_act_for_a_seat_that_is_not_theirs(tmp_path: Path) -> None:
    async def main() -> None:
        async with Served(tmp_path) as served:
            ann, bob, info = await seated(served)
            tid = info.table_id
            pa, pb = Person(ANN.player, "Ann"), Person(BOB.player, "Bob")
            await ann.start(tid, pa)
            view = await ann.snapshot(tid, pa)
            seat = view.to_move
            assert seat is not None
            owner, person = (ann, pa) if seat == 0 else (bob, pb)
            legal = (await owner.snapshot(tid, person)).seat_view().legal_moves()
            eve = await served.remote(EVE)
            # Eve claims to be the seat's holder: only the name is sent, the server knows her.
            for claim in (Person(ANN.player, "Ann"), Person(BOB.player, "Eve")):
                with pytest.raises(MoveRefused, match="not your seat"):
                    await eve.submit_move(tid, claim, seat, legal[0])
            # Also on a raw frame with any made-up arguments.
            raw = await served.client(EVE)
            reply = await answer(raw, {"type": "call", "id": 5, "op": "submit_move",
                                       "name": "Ann", "args": {"table": tid, "seat": seat,
                                                               "move": move_to_json(legal[0])}})
            assert reply == {"type": "refused", "id": 5, "reason": "that is not your seat",
                             "kind": "move"}
            reply = await answer(raw, {"type": "call", "id": 6, "op": "submit_move",
                                       "args": {"table": tid, "seat": seat, "player": ANN.player,
                                                "move": move_to_json(legal[0])}})
            assert reply["type"] == "refused" and reply["kind"] == "request"
            # The other person cannot play it either; the holder can.
            other, other_person = (bob, pb) if owner is ann else (ann, pa)
            with pytest.raises(MoveRefused, match="not your seat"):
                await other.submit_move(tid, other_person, seat, legal[0])
            assert served.hub.controller(tid).to_move == seat
            await owner.submit_move(tid, person, seat, legal[0])
            assert served.hub.controller(tid).to_move != seat
            # Eve watches the public table: no hand.
            watched = await eve.spectate(tid, Person("x", "Eve"))
            assert watched.seat is None and watched.hand == ()

    run(main())


# ====================================================================== coming and going
class GatedClient(WireClient):
    """A client whose reconnection waits until the test opens the gate."""

    gate: asyncio.Event

    async def reconnect(self, *, attempts: int = 5, delay: float = 0.2) -> None:
        await GatedClient.gate.wait()
        await super().reconnect(attempts=attempts, delay=delay)


def test_a_dropped_client_is_away_and_comes_back_without_missing_an_event(
        tmp_path: Path) -> None:
    async def main() -> None:
        GatedClient.gate = asyncio.Event()
        async with Served(tmp_path) as served:
            ann = await served.remote(ANN)
            bob = await served.remote(BOB, GatedClient)
            pa, pb = Person("a", "Ann"), Person("b", "Bob")
            info = await ann.create_table(two_people(seed=4), pa)
            tid = info.table_id
            await bob.join(info.code, pb)
            await bob.take_seat(tid, pb)
            ann_sub = await ann.subscribe(tid, pa, 0)
            bob_sub = await bob.subscribe(tid, pb, 0)
            await ann.start(tid, pa)
            ctl = served.hub.controller(tid)
            rng = random.Random(8)
            # Play until it is Ann's turn, then Bob's connection drops.
            while ctl.to_move != 0:
                await bob.submit_move(tid, pb, 1, rng.choice(
                    (await bob.snapshot(tid, pb)).seat_view().legal_moves()))
            bob_events = bob_sub.ready()
            served.service.wire.disconnect(BOB)
            await until(lambda: ctl.seats[1].away_since is not None, "Bob away")
            await until(lambda: ann_sub.last == ctl.number, "Ann sees Bob away")
            ann_events = ann_sub.ready()
            assert [e.data.get("change") for e in ann_events if e.kind == "seat"][-1:] == [
                "away"]
            assert (await ann.list_tables(pa))[0].seats[1].away_since is not None
            # Meanwhile Ann plays, and Bob's calls are refused until he is back.
            await ann.submit_move(tid, pa, 0, rng.choice(
                (await ann.snapshot(tid, pa)).seat_view().legal_moves()))
            assert not bob.connected
            # He comes back: not away, at the same position, with every event in order.
            GatedClient.gate.set()
            await until(lambda: bob.reconnections == 1 and bob.connected, "Bob back")
            await until(lambda: ctl.seats[1].away_since is None, "Bob not away")
            await until(lambda: bob_sub.last == ctl.number, "Bob's missed events")
            bob_events += bob_sub.ready()
            assert [e.number for e in bob_events] == list(range(1, ctl.number + 1))
            changes = [e.data.get("change") for e in bob_events if e.kind == "seat"]
            assert changes[-2:] == ["away", "back"]
            assert bob_events[-1].kind == "seat" and bob_events[-2].kind == "move" \
                and bob_events[-2].seat == 0 and bob_events[-2].move is not None
            view = await bob.snapshot(tid, pb)
            expected = ctl.view_for(1)
            assert view.to_json() == expected.to_json()  # the same position, his seat's view
            await bob.submit_move(tid, pb, 1, rng.choice(view.seat_view().legal_moves()))
            await until(lambda: ann_sub.last == ctl.number, "Ann sees Bob's move")
            later = ann_sub.ready()  # her move, Bob back, his move
            assert [(e.kind, e.seat) for e in later] == [("move", 0), ("seat", 1), ("move", 1)]
            assert later[1].data["change"] == "back"

    run(main())


def test_the_end_of_the_session_ends_the_remote_hub(tmp_path: Path) -> None:
    async def main() -> None:
        async with Served(tmp_path) as served:
            ann, bob, info = await seated(served)
            tid = info.table_id
            pb = Person("b", "Bob")
            eve = await served.remote(EVE)
            await eve.spectate(tid, Person("e", "Eve"))
            sub = await bob.subscribe(tid, pb, 0)
            await served.service.end_session(served.secrets[BOB])
            await served.service.end_session(served.secrets[EVE])
            await until(lambda: bob.closed, "Bob's hub to give up")
            with pytest.raises(ConnectionLost, match="cannot be reached"):
                await bob.snapshot(tid, pb)
            with pytest.raises(HubError):
                while True:
                    await sub.next()
            assert sub.lost
            infos = await ann.list_tables(Person("a", "Ann"))
            assert infos[0].seats[1].away_since is not None and infos[0].spectators == 0
            with pytest.raises(Refused):
                await WireClient.connect(served.path, served.secrets[BOB])

    run(main())


def test_the_hub_from_the_apps_environment(tmp_path: Path) -> None:
    async def main() -> None:
        assert await hub_from_environment({}) is None
        async with Served(tmp_path) as served:
            env = session_environment(served.path, served.secret(ANN))
            hub = await hub_from_environment(env)
            assert hub is not None and hub.player == ANN.player
            await hub.close()
            bad = session_environment(served.path, new_secret())
            with pytest.raises(HubError, match="cannot be reached: unknown secret"):
                await hub_from_environment(bad)
            with pytest.raises(HubError, match="cannot be reached"):
                await hub_from_environment(session_environment(tmp_path / "no.sock", "s" * 20))

    run(main())


# ====================================================================== bad requests
def test_malformed_requests_are_refused_and_the_connection_goes_on(tmp_path: Path) -> None:
    async def main() -> None:
        async with Served(tmp_path) as served:
            ann, bob, info = await seated(served)
            tid = info.table_id
            raw = await served.client(EVE)
            # Eve never sent a name: what shows it needs one (then it is kept).
            reply = await answer(raw, {"type": "call", "id": 12, "op": "join",
                                       "args": {"code": info.code}})
            assert reply == {"type": "refused", "id": 12, "kind": "request",
                             "reason": "choose a display name first"}
            bad: list[dict[str, Any]] = [
                {"type": "nonsense", "id": 1},
                {"type": "call", "op": "list_tables"},
                {"type": "call", "id": True, "op": "list_tables"},
                {"type": "call", "id": -1, "op": "list_tables"},
                {"type": "call", "id": 2, "op": "drop_all_tables"},
                {"type": "call", "id": 3, "op": ["list_tables"]},
                {"type": "call", "id": 4, "op": "_create_table"},
                {"type": "call", "id": 5, "op": "take_seat", "args": {"table": 5}},
                {"type": "call", "id": 6, "op": "take_seat", "args": []},
                {"type": "call", "id": 7, "op": "take_seat", "name": "Eve",
                 "args": {"table": tid, "seat": "1"}},
                {"type": "call", "id": 8, "op": "take_seat", "name": "Eve",
                 "args": {"table": tid, "seat": 10**20}},
                {"type": "call", "id": 9, "op": "snapshot", "args": {"table": "x" * 1000}},
                {"type": "call", "id": 10, "op": "submit_move",
                 "args": {"table": tid, "seat": 0, "move": {"kind": "steal"}}},
                {"type": "call", "id": 11, "op": "create_table", "name": "Eve",
                 "args": {"config": {"players": 99}}},
                {"type": "call", "id": 13, "op": "join", "name": "Eve\x1b[2J",
                 "args": {"code": info.code}},
                {"type": "call", "id": 14, "op": "join", "name": "x" * 21,
                 "args": {"code": info.code}},
                {"type": "call", "id": 15, "op": "chat", "name": "Eve",
                 "args": {"table": tid, "text": None}},
                {"type": "call", "id": 16, "op": "events_after",
                 "args": {"table": tid, "number": 1.5}},
                {"type": "call", "id": 17, "op": "hand_to_computer",
                 "args": {"table": tid, "seat": 1, "level": "godlike"}},
                {"type": "call", "id": 18, "op": "list_tables", "args": {"all": True}},
                {"type": "call", "id": 19, "op": "new_game", "args": {"table": tid, "seat": 0}},
            ]
            for message in bad:
                reply = await answer(raw, message)
                assert reply["type"] == "refused" and reply["kind"] == "request", reply
                assert isinstance(reply["reason"], str) and reply["reason"]
                expected = message.get("id")
                if isinstance(expected, bool) or not isinstance(expected, int) or expected < 0:
                    expected = None
                assert reply["id"] == expected
            # What the hub refuses is "hub"; unknown tables too.
            reply = await answer(raw, {"type": "call", "id": 20, "op": "snapshot",
                                       "args": {"table": "nope"}})
            assert reply["kind"] == "hub" and "no such table" in reply["reason"]
            reply = await answer(raw, {"type": "call", "id": 21, "op": "join", "name": "Eve",
                                       "args": {"code": "12345"}})
            assert reply["kind"] == "hub" and "KAMIRO" in reply["reason"]
            # A bug in the hub is refused and logged; the connection and the server go on.
            real = served.hub.list_tables

            async def broken(person: Person) -> list[TableInfo]:
                raise RuntimeError("a bug")

            served.hub.list_tables = broken  # type: ignore[method-assign]
            reply = await answer(raw, {"type": "call", "id": 22, "op": "list_tables"})
            assert reply["kind"] == "hub" and "error on the server" in reply["reason"]
            served.hub.list_tables = real  # type: ignore[method-assign]
            # The same connection still works, with a name given once.
            reply = await answer(raw, {"type": "call", "id": 23, "op": "join", "name": " Eve ",
                                       "args": {"code": info.code.lower()}})
            assert reply["type"] == "result" and reply["value"]["spectators"] == 1
            reply = await answer(raw, {"type": "call", "id": 24, "op": "chat",
                                       "args": {"table": tid, "text": "hi"}})
            assert reply["type"] == "result" and reply["value"]["data"]["who"] == "Eve"
            # A call that does not show the name goes on with a bad one (not kept).
            reply = await answer(raw, {"type": "call", "id": 25, "op": "snapshot", "name": "",
                                       "args": {"table": tid}})
            assert reply["type"] == "result" and reply["value"]["seat"] is None
            reply = await answer(raw, {"type": "call", "id": 26, "op": "chat", "name": 5,
                                       "args": {"table": tid, "text": "hi"}})
            assert reply["type"] == "refused" and reply["reason"] == "name must be text"
            # Too many subscriptions at once.
            for n in range(served.service.max_subscriptions):
                reply = await answer(raw, {"type": "call", "id": 100 + n, "op": "subscribe",
                                           "args": {"table": tid, "after": 0}})
                assert reply["type"] == "result", reply
            reply = await answer(raw, {"type": "call", "id": 200, "op": "subscribe",
                                       "args": {"table": tid, "after": 0}})
            assert reply["type"] == "refused" and "at most" in reply["reason"]
            # The others never noticed.
            assert len(await ann.list_tables(Person("a", "Ann"))) == 1
            assert await bob.take_seat(tid, Person("b", "Bob")) == 1
            assert set(OPS) >= {"create_table", "submit_move", "subscribe", "unsubscribe"}

    run(main())


def test_a_long_answer_comes_in_parts(tmp_path: Path) -> None:
    async def main() -> None:
        async with Served(tmp_path, max_frame=4096) as served:
            ann = await served.remote(ANN)
            pa = Person("a", "Ann")
            made = [await ann.create_table(two_people(seed=n), pa) for n in range(30)]
            raw = await served.client(EVE)
            await raw.send({"type": "call", "id": 1, "op": "list_tables"})
            kinds = []
            while True:
                reply = await asyncio.wait_for(raw.receive(), 5)
                assert reply is not None
                kinds.append(reply["type"])
                if reply["type"] == "result":
                    break
            assert kinds[:2] == ["part", "part"] and kinds[-1] == "result"
            listed = await ann.list_tables(pa)
            assert sorted(t.table_id for t in listed) == sorted(t.table_id for t in made)

    run(main())


# ====================================================================== nothing leaks
@pytest.mark.parametrize("config", [
    two_people(seed=21),
    two_people(seed=8, preset="draw_cassino"),
    GameConfig(players=4, seed=5, target=11, seats=(
        SeatConfig("South", True), SeatConfig("West", True), SeatConfig("North", False, "easy"),
        SeatConfig("East", False, "easy"))),
], ids=["classic-2p", "draw-2p", "classic-4p-2-people-2-computers"])
def test_nothing_hidden_is_sent_to_a_seat_or_a_spectator(tmp_path: Path,
                                                         config: GameConfig) -> None:
    """Every frame the service sends Ann (seat 0) and Eve (a spectator) during a whole round,
    checked at the moment it is sent against the cards hidden from them then."""

    async def main() -> Recorder:
        async with Served(tmp_path) as served:
            ann, bob, info = await seated(served, config)
            tid = info.table_id
            eve = await served.remote(EVE)
            pa, pb, pe = Person("a", "Ann"), Person("b", "Bob"), Person("e", "Eve")
            ctl = served.hub.controller(tid)
            rec = Recorder(ctl.state, (0, None))
            who: dict[Identity, Recipient] = {ANN: 0, EVE: None}
            wire = served.service.wire
            real_send = wire.send

            def send(identity: Identity, message: Any) -> bool:
                if identity in who:
                    rec.send(who[identity], message)
                return real_send(identity, message)

            wire.send = send  # type: ignore[method-assign]
            await eve.spectate(tid, pe)
            subs = [await ann.subscribe(tid, pa, 0), await eve.subscribe(tid, pe, 0)]
            await ann.snapshot(tid, pa)
            await ann.start(tid, pa)

            async def look() -> None:  # the people look at the table after every move
                await ann.snapshot(tid, pa)
                await eve.snapshot(tid, pe)
                await ann.events_after(tid, pa, 0)

            await play_round({0: (ann, pa), 1: (bob, pb)}, tid, random.Random(6), look)
            await served.hub.idle(tid)
            await until(lambda: all(s.last == ctl.number for s in subs), "every event sent")
            assert all(not s.lost for s in subs)
            wire.send = real_send  # type: ignore[method-assign]
            return rec

    rec = asyncio.run(main())
    kinds = {m[1].get("type") for m in rec.sent if isinstance(m[1], dict)}
    assert {"result", "event"} <= kinds
    assert any(m[0] is None for m in rec.sent) and any(m[0] == 0 for m in rec.sent)
    rec.check()


def test_a_busy_server_is_waited_for_and_the_log_says_so(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The server does not answer the first hello in time (a crowd logging in at once): the app
    tries again, waiting longer, says so to the player, and the server's log says a busy
    moment made a game wait; the connection that was given up replaces nothing."""
    import logging

    caplog.set_level(logging.INFO, logger="casino_tui.table")

    async def main() -> None:
        async with Served(tmp_path) as served:
            wire = served.service.wire
            serve = wire._serve
            slow = [True]

            async def busy(reader: Any, link: Any) -> None:
                if slow[0]:  # the first connection is answered late
                    slow[0] = False
                    await asyncio.sleep(1.5)
                await serve(reader, link)

            wire._serve = busy  # type: ignore[method-assign]
            env = session_environment(served.path, served.secret(ANN))
            waits: list[tuple[int, float]] = []
            hub = await hub_from_environment(env, timeout=0.5, tries=3,
                                             on_wait=lambda n, s: waits.append((n, s)))
            assert hub is not None
            served.remotes.append(hub)
            assert [n for n, _ in waits] == [2] and waits[0][1] >= 0.5
            info = await hub.create_table(two_people(), Person("ignored", "Ann"))
            await asyncio.sleep(1.5)  # the late answer to the first try comes and goes
            assert hub.connected and hub.reconnections == 0
            assert (await hub.find(info.code)).table_id == info.table_id
            assert "session 1 of player-ann reached the tables on its try 2" in caplog.text
            assert "closed before its hello was answered: the server is busy" in caplog.text
            # given up for good after the tries: told, never a hang
            slow[0] = True
            with pytest.raises(HubError, match="cannot be reached"):
                await hub_from_environment(session_environment(served.path,
                                                               served.secret(BOB)),
                                           timeout=0.2, tries=1)

    run(main())
