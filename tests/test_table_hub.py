"""The in-process table hub: tables created, listed, found by code and joined; seats taken;
moves checked against the seat the caller holds; spectators; people away, their seats handed to
a computer and taken back; chat limits; tables saved with their players and restored after a
restart; tables nobody came back to closed after a day."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from table_support import SeededThinker

from casino_tui.engine import Move
from casino_tui.saves import SaveStore
from casino_tui.table import GameConfig, MoveRefused, SeatConfig
from casino_tui.table.codes import is_code
from casino_tui.table.hub import (
    CHAT_BURST,
    CHAT_MAX,
    DAY,
    HubError,
    LocalHub,
    Person,
    TableHub,
)

ANN = Person("key-ann", "Ann")
BOB = Person("key-bob", "Bob")
EVE = Person("key-eve", "Eve")


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def two_people(**kw: object) -> GameConfig:
    seats = (SeatConfig("South", True), SeatConfig("North", True))
    return GameConfig(players=2, seats=seats, seed=13, **kw)  # type: ignore[arg-type]


def run(fn: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(fn())  # type: ignore[arg-type]


def make_hub(tmp_path: Path, clock: Clock | None = None, codes: list[str] | None = None,
             ) -> LocalHub:
    kw: dict[str, object] = {}
    if codes is not None:
        kw["new_code"] = lambda: codes.pop(0)
    return LocalHub(SeededThinker(), SaveStore(tmp_path / "tables"), clock=clock or Clock(),
                    **kw)  # type: ignore[arg-type]


async def seated_table(hub: LocalHub, config: GameConfig | None = None,
                       start: bool = True) -> str:
    info = await hub.create_table(config or two_people(), ANN)
    await hub.join(info.code, BOB)
    await hub.take_seat(info.table_id, BOB)
    if start:
        await hub.start(info.table_id, ANN)
        await hub.idle(info.table_id)
    return info.table_id


async def play_turn(hub: LocalHub, tid: str) -> None:
    """The person to move plays their first legal move (from their own view)."""
    ctl = hub.controller(tid)
    seat = ctl.to_move
    assert seat is not None
    person = ANN if hub.controller(tid).seats[seat].name == "Ann" else BOB
    view = await hub.snapshot(tid, person)
    await hub.submit_move(tid, person, seat, view.seat_view().legal_moves()[0])
    await hub.idle(tid)


def test_the_local_hub_is_a_table_hub(tmp_path: Path) -> None:
    hub: TableHub = make_hub(tmp_path)  # mypy checks that LocalHub has the whole interface
    assert hub is not None


def test_tables_are_created_listed_found_by_code_and_joined(tmp_path: Path) -> None:
    async def main() -> None:
        hub = make_hub(tmp_path, codes=["ka-mi-ro", "BADEFU"])
        public = await hub.create_table(two_people(), ANN)
        private = await hub.create_table(two_people(), ANN, public=False)
        assert public.code == "KAMIRO" and public.open_seats == 1 and not public.started
        assert public.seats[0].holder == "Ann" and public.creator == "Ann"
        assert [t.table_id for t in await hub.list_tables(BOB)] == [public.table_id]
        assert {t.table_id for t in await hub.list_tables(ANN)} == {public.table_id,
                                                                    private.table_id}
        assert (await hub.find(" Ka-Mi ro ")).table_id == public.table_id
        with pytest.raises(HubError, match="no table has this code"):
            await hub.find("ZAZAZA")
        with pytest.raises(HubError, match="syllables such as KAMIRO"):
            await hub.find("AB3-XY7")
        with pytest.raises(HubError, match="private"):
            await hub.spectate(private.table_id, BOB)
        joined = await hub.join("ba-de-fu", BOB)
        assert joined.table_id == private.table_id and joined.spectators == 1
        assert await hub.take_seat(private.table_id, BOB) == 1
        assert private.table_id in {t.table_id for t in await hub.list_tables(BOB)}
        with pytest.raises(HubError, match="every seat"):
            await hub.take_seat(private.table_id, EVE)
        with pytest.raises(HubError, match="one seat for a person"):
            await hub.create_table(GameConfig(seats=(SeatConfig("A", False),
                                                     SeatConfig("B", False))), ANN)

    run(main)


def test_join_codes_are_the_codes_of_codes_py(tmp_path: Path) -> None:
    """Without an injected source, a table's code is three consonant-vowel syllables, unique
    among the open tables."""
    async def main() -> None:
        hub = make_hub(tmp_path)
        made = [(await hub.create_table(two_people(), ANN)).code for _ in range(20)]
        assert all(is_code(c) and c == c.upper() and len(c) == 6 for c in made)
        assert len(set(made)) == len(made)
        assert (await hub.find(made[0].lower())).code == made[0]

    run(main)


def test_names_are_unique_at_a_table_and_seats_start_with_the_creator(tmp_path: Path) -> None:
    async def main() -> None:
        hub = make_hub(tmp_path)
        seats = (SeatConfig("South", True), SeatConfig("West", True),
                 SeatConfig("North", True), SeatConfig("East", False, "easy"))
        info = await hub.create_table(GameConfig(players=4, seats=seats, seed=2), ANN)
        tid = info.table_id
        assert await hub.take_seat(tid, Person("key-ann2", "ann")) == 1
        assert await hub.take_seat(tid, Person("key-east", "East")) == 2
        names = [s.name for s in hub.controller(tid).seats]
        assert names == ["Ann", "ann 2", "East 2", "East"]
        with pytest.raises(HubError, match="only the table's creator"):
            await hub.start(tid, BOB)
        await hub.leave(tid, Person("key-east", "East"))  # before the start: the seat opens
        assert hub.controller(tid).seats[2].name == "North"
        await hub.start(tid, ANN)
        await hub.idle(tid)
        info = (await hub.list_tables(ANN))[0]
        assert [s.kind for s in info.seats] == ["person", "person", "computer", "computer"]
        assert info.started
        with pytest.raises(HubError, match="has started"):
            await hub.take_seat(tid, EVE)
        with pytest.raises(HubError, match="started already"):
            await hub.start(tid, ANN)

    run(main)


def test_a_move_is_refused_for_a_seat_the_caller_does_not_hold(tmp_path: Path) -> None:
    async def main() -> None:
        hub = make_hub(tmp_path)
        tid = await seated_table(hub, start=False)
        ctl = hub.controller(tid)
        seat = ctl.to_move
        assert seat is not None
        holder, other = (ANN, BOB) if seat == 0 else (BOB, ANN)
        move = ctl.state.legal_moves()[0]
        with pytest.raises(MoveRefused, match="not started"):
            await hub.submit_move(tid, holder, seat, move)
        await hub.start(tid, ANN)
        for person in (other, EVE):
            with pytest.raises(MoveRefused, match="not your seat"):
                await hub.submit_move(tid, person, seat, move)
        with pytest.raises(MoveRefused, match="turn"):
            await hub.submit_move(tid, other, 1 - seat, move)
        with pytest.raises(MoveRefused):
            await hub.submit_move(tid, holder, seat, Move.capture(move.card, (0, 1, 2, 3)))
        assert not ctl.state.history
        events = await hub.submit_move(tid, holder, seat, move)
        assert [e.kind for e in events] == ["move"] and ctl.state.history == [move]

    run(main)


def test_a_spectator_sees_no_hand_and_follows_the_events(tmp_path: Path) -> None:
    async def main() -> None:
        hub = make_hub(tmp_path)
        tid = await seated_table(hub)
        view = await hub.spectate(tid, EVE)
        assert view.seat is None and view.hand == ()
        sub = await hub.subscribe(tid, EVE, view.number)
        await play_turn(hub, tid)
        got = sub.ready()
        assert [e.kind for e in got] == ["move"] and got[0].number == view.number + 1
        assert (await hub.snapshot(tid, EVE)).hand == ()
        mine = await hub.snapshot(tid, ANN)
        assert mine.seat == 0 and mine.hand == tuple(hub.controller(tid).state.hands[0])
        everything = await hub.events_after(tid, EVE, 0)
        assert [e.number for e in everything] == list(range(1, hub.controller(tid).number + 1))
        await hub.leave(tid, EVE)
        with pytest.raises(HubError, match="not at this table"):
            await hub.chat(tid, EVE, "hello")

    run(main)


def test_an_away_seat_goes_to_a_computer_and_back_to_its_person(tmp_path: Path) -> None:
    clock = Clock()

    async def main() -> None:
        hub = make_hub(tmp_path, clock)
        tid = await seated_table(hub)
        ctl = hub.controller(tid)
        await hub.mark_away(tid, BOB)
        assert ctl.seats[1].away_since == clock.now
        info = (await hub.list_tables(ANN))[0]
        assert info.seats[1].away_since == clock.now and info.seats[1].kind == "person"
        with pytest.raises(HubError, match="wait"):
            await hub.hand_to_computer(tid, ANN, 1, "easy")
        clock.now += 61
        with pytest.raises(HubError, match="only the table's creator"):
            await hub.hand_to_computer(tid, BOB, 1)
        with pytest.raises(HubError, match="is here"):
            await hub.hand_to_computer(tid, ANN, 0)
        await hub.hand_to_computer(tid, ANN, 1, "easy")
        assert ctl.seats[1].stand_in and ctl.level(1) == "easy"
        for _ in range(6):  # Bob's turns are played by the computer
            if ctl.to_move == 0:
                await play_turn(hub, tid)
            assert ctl.to_move in (0, None)
        with pytest.raises(MoveRefused, match="a computer plays your seat"):
            await hub.submit_move(tid, BOB, 1, Move.trail(ctl.state.hands[1][0]))
        await hub.give_back(tid, ANN, 1)
        assert not ctl.seats[1].stand_in and ctl.seats[1].away_since is not None
        await hub.hand_to_computer(tid, ANN, 1, "easy")
        assert await hub.take_seat(tid, BOB) == 1  # coming back takes the seat back
        assert not ctl.seats[1].stand_in and ctl.seats[1].away_since is None
        changes = [e.data["change"] for e in ctl.events if e.kind == "seat"]
        assert changes[-5:] == ["away", "computer", "away", "computer", "returned"]
        if ctl.to_move == 0:
            await play_turn(hub, tid)
        assert ctl.awaiting() == 1  # Bob's turn waits for Bob again

    run(main)


def test_chat_is_limited_and_kept_as_typed(tmp_path: Path) -> None:
    clock = Clock()

    async def main() -> None:
        hub = make_hub(tmp_path, clock)
        tid = await seated_table(hub)
        sub = await hub.subscribe(tid, BOB, hub.controller(tid).number)
        text = "[b]hi[/b] \x1b[31mred\x1b[0m $(rm -rf)"
        event = await hub.chat(tid, ANN, text)
        assert event.text == text and event.data["who"] == "Ann" and event.kind == "chat"
        received = sub.ready()[0]
        assert received.text == text
        assert json.loads(json.dumps(received.to_json()))["text"] == text
        with pytest.raises(HubError, match=f"at most {CHAT_MAX}"):
            await hub.chat(tid, ANN, "x" * (CHAT_MAX + 1))
        with pytest.raises(HubError, match="say something"):
            await hub.chat(tid, ANN, "   ")
        for i in range(CHAT_BURST - 1):
            await hub.chat(tid, ANN, f"line {i}")
        with pytest.raises(HubError, match="too fast"):
            await hub.chat(tid, ANN, "one more")
        await hub.chat(tid, BOB, "Bob may still talk")
        clock.now += 11
        await hub.chat(tid, ANN, "and now Ann again")

    run(main)


def test_the_next_round_waits_for_every_person_present(tmp_path: Path) -> None:
    async def main() -> None:
        hub = make_hub(tmp_path)
        tid = await seated_table(hub, two_people(target=11))
        ctl = hub.controller(tid)
        while not ctl.round_over:
            await play_turn(hub, tid)
        await hub.next_round(tid, ANN)
        assert ctl.round_over
        await hub.next_round(tid, BOB)
        assert ctl.state.round_no == 2 and not ctl.round_over

    run(main)


def test_tables_are_saved_with_their_players_and_back_after_a_restart(tmp_path: Path) -> None:
    clock = Clock()

    async def first() -> tuple[str, str, list[dict[str, object]], str]:
        hub = make_hub(tmp_path, clock)
        tid = await seated_table(hub)
        for _ in range(5):
            await play_turn(hub, tid)
        ctl = hub.controller(tid)
        slot = ctl.slot
        assert slot is not None
        data = json.loads(slot.path.read_text())
        assert data["extra"]["seats"] == [
            {"name": "Ann", "kind": "human", "player": "key-ann"},
            {"name": "Bob", "kind": "human", "player": "key-bob"}]
        assert data["extra"]["table"]["id"] == tid and data["extra"]["table"]["started"]
        assert len(data["moves"]) == len(ctl.state.history)
        code = (await hub.list_tables(ANN))[0].code
        events = [e.to_json() for e in ctl.events if e.kind != "seat" and e.kind != "note"]
        epoch = (await hub.snapshot(tid, ANN)).epoch
        hub.shutdown()  # the server stops
        return tid, code, events, epoch

    tid, code, events, epoch = asyncio.run(first())

    async def second() -> None:
        clock.now += 300
        hub = make_hub(tmp_path, clock)
        assert hub.restore() == [tid]
        ctl = hub.controller(tid)
        info = await hub.find(code)
        assert info.table_id == tid and info.started
        assert [s.holder for s in info.seats] == ["Ann", "Bob"]
        assert all(s.away_since == clock.now for s in info.seats)  # nobody is here yet
        kinds = [e.to_json() for e in ctl.events if e.kind != "seat" and e.kind != "note"]
        assert [e["kind"] for e in kinds] == [e["kind"] for e in events]  # type: ignore[index]
        assert await hub.take_seat(tid, ANN) == 0
        assert await hub.come_back(tid, BOB) == 1
        view = await hub.snapshot(tid, ANN)
        assert view.hand == tuple(ctl.state.hands[0])
        assert view.epoch and view.epoch != epoch  # the events are numbered anew
        before = len(ctl.state.history)
        await play_turn(hub, tid)
        assert len(ctl.state.history) > before
        hub.shutdown()

    asyncio.run(second())


def test_a_hub_saving_in_background_has_every_move_on_disk_after_shutdown(
        tmp_path: Path) -> None:
    """The server's hub writes its tables' files in threads (the disk never holds up the event
    loop): after it stops, each file has every move, and the table comes back as it was."""
    async def first() -> tuple[str, list[Move]]:
        hub = LocalHub(SeededThinker(), SaveStore(tmp_path / "tables"), clock=Clock(),
                       save_in_background=True)
        tid = await seated_table(hub)
        assert hub.controller(tid).saver is not None
        for _ in range(7):
            await play_turn(hub, tid)
        history = list(hub.controller(tid).state.history)
        hub.shutdown()
        return tid, history

    tid, history = asyncio.run(first())
    again = make_hub(tmp_path)
    assert again.restore() == [tid]
    assert again.controller(tid).state.history == history
    again.shutdown()


def test_a_moves_events_reach_the_other_players_before_its_save_begins(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Saving in background from the hub's event loop, the save's thread starts once the loop
    has sent the move's events on (their subscribers' tasks run first), not while the move is
    being played: starting it made the loop wait for it."""
    import threading

    from casino_tui.table.controller import BackgroundSaver

    def saving() -> bool:
        return any(t.name == "table-save" for t in threading.enumerate())

    async def main() -> None:
        hub = LocalHub(SeededThinker(), SaveStore(tmp_path / "tables"), clock=Clock(),
                       save_in_background=True)
        tid = await seated_table(hub)
        saver = hub.controller(tid).saver
        assert saver is not None
        while saver._running:  # the start's save
            await asyncio.sleep(0.01)
        order: list[str] = []
        gate = threading.Event()
        write = BackgroundSaver._write

        def gated(saver: BackgroundSaver, state: object) -> None:
            order.append("save")
            assert gate.wait(20)
            write(saver, state)  # type: ignore[arg-type]

        monkeypatch.setattr(BackgroundSaver, "_write", gated)
        sub = await hub.subscribe(tid, BOB, hub.controller(tid).number)

        async def follow() -> None:
            await sub.next()
            order.append("event")

        follower = asyncio.create_task(follow())
        await asyncio.sleep(0)  # (waiting for the event)
        view = await hub.snapshot(tid, ANN)
        await hub.submit_move(tid, ANN, 0, view.seat_view().legal_moves()[0])
        assert not saving()  # not started while the move was played
        await follower
        for _ in range(200):
            if order[-1:] == ["save"]:
                break
            await asyncio.sleep(0.01)
        assert order == ["event", "save"]
        gate.set()
        hub.shutdown()

    run(main)
    game = SaveStore(tmp_path / "tables").entries()
    assert game and all(e.error is None for e in game)


def test_a_table_nobody_came_back_to_is_closed_after_a_day(tmp_path: Path) -> None:
    clock = Clock()

    async def main() -> None:
        hub = make_hub(tmp_path, clock)
        tid = await seated_table(hub)
        await hub.spectate(tid, EVE)
        await hub.mark_away(tid, ANN)
        await hub.leave(tid, BOB)  # a started game: Bob keeps his seat, away
        assert hub.close_idle() == []  # Eve is watching
        await hub.leave(tid, EVE)
        clock.now += DAY - 1
        assert hub.close_idle() == []
        clock.now += 1
        slot = hub.controller(tid).slot
        assert slot is not None
        assert hub.close_idle() == [tid]
        assert await hub.list_tables(ANN) == []
        with pytest.raises(HubError, match="no such table"):
            await hub.snapshot(tid, ANN)
        assert json.loads(slot.path.read_text())["extra"]["table"]["closed"] is True
        again = make_hub(tmp_path, clock)
        assert again.restore() == []

    run(main)


def test_a_table_with_a_person_back_is_kept(tmp_path: Path) -> None:
    clock = Clock()

    async def main() -> None:
        hub = make_hub(tmp_path, clock)
        tid = await seated_table(hub)
        await hub.mark_away(tid, ANN)
        await hub.mark_away(tid, BOB)
        clock.now += DAY / 2
        await hub.come_back(tid, BOB)
        clock.now += DAY
        assert hub.close_idle() == []
        assert [t.table_id for t in await hub.list_tables(BOB)] == [tid]

    run(main)


def test_a_person_who_comes_back_while_the_computer_thinks_plays_their_own_turn(
        tmp_path: Path) -> None:
    clock = Clock()

    class SlowThinker(SeededThinker):
        def __init__(self) -> None:
            super().__init__()
            self.go = asyncio.Event()
            self.started = 0

        async def choose(self, view, level, seed):  # type: ignore[no-untyped-def]
            self.started += 1
            await self.go.wait()
            return await super().choose(view, level, seed)

    async def main() -> None:
        thinker = SlowThinker()
        hub = LocalHub(thinker, None, clock=clock)
        tid = await seated_table(hub, start=False)
        await hub.start(tid, ANN)
        ctl = hub.controller(tid)
        if ctl.to_move == 0:
            await play_turn(hub, tid)
        assert ctl.to_move == 1
        await hub.mark_away(tid, BOB)
        clock.now += 120
        await hub.hand_to_computer(tid, ANN, 1)
        await asyncio.sleep(0)  # the computer starts thinking for Bob's seat
        assert thinker.started == 1
        await hub.come_back(tid, BOB)
        thinker.go.set()
        await hub.idle(tid)
        assert ctl.to_move == 1 and ctl.awaiting() == 1  # the computer's answer was dropped
        await play_turn(hub, tid)
        assert ctl.to_move == 0

    run(main)


async def play_game(hub: LocalHub, tid: str) -> None:
    """Play the table's game to its end (both people see every round's summary)."""
    ctl = hub.controller(tid)
    while not ctl.game_over:
        if ctl.round_over:
            await hub.next_round(tid, ANN)
            await hub.next_round(tid, BOB)
        else:
            await play_turn(hub, tid)


def test_the_creator_starts_a_new_game_at_the_table_with_the_same_seats(
        tmp_path: Path) -> None:
    clock = Clock()

    async def first() -> tuple[str, str]:
        hub = make_hub(tmp_path, clock)
        tid = await seated_table(hub, two_people(target=11))
        ctl = hub.controller(tid)
        with pytest.raises(HubError, match="not over yet"):
            await hub.new_game(tid, ANN)
        await play_game(hub, tid)
        view = await hub.snapshot(tid, BOB)
        assert view.creator_seat == 0 and view.game
        old_slot = ctl.slot
        assert old_slot is not None
        with pytest.raises(HubError, match="only the table's creator"):
            await hub.new_game(tid, BOB)
        sub = await hub.subscribe(tid, BOB, view.number)
        await hub.new_game(tid, ANN)
        assert not ctl.game_over and ctl.state.round_no == 1 and ctl.state.scores == [0, 0]
        assert ctl.names == ["Ann", "Bob"]
        events = sub.ready()  # the numbering goes on: a note, then the new deal
        assert [e.number for e in events] == [view.number + 1, view.number + 2]
        assert events[0].kind == "note" and events[0].data["new_game"] == 2
        assert events[1].kind == "round_start"
        again = await hub.snapshot(tid, BOB)
        assert again.game != view.game and again.epoch == view.epoch and again.hand
        info = (await hub.list_tables(BOB))[0]
        assert info.your_seat == 1 and info.started and not info.finished
        # the finished game's file is kept, closed; the new game has its own
        old = json.loads(old_slot.path.read_text())
        assert old["extra"]["table"]["closed"]
        assert ctl.slot is not None and ctl.slot.path != old_slot.path
        await play_turn(hub, tid)
        hub.shutdown()
        return tid, again.game

    tid, game = asyncio.run(first())

    async def second() -> None:
        hub = make_hub(tmp_path, clock)
        assert hub.restore() == [tid]  # the new game, not the finished one
        ctl = hub.controller(tid)
        assert not ctl.game_over and len(ctl.state.history) == 1
        restored = await hub.snapshot(tid, BOB)
        assert restored.game == game and restored.creator_seat == 0
        hub.shutdown()

    asyncio.run(second())


def test_a_seat_client_reads_the_events_of_one_game(tmp_path: Path) -> None:
    from casino_tui.table.client import SeatClient

    async def main() -> None:
        hub = make_hub(tmp_path)
        tid = await seated_table(hub, two_people(target=11))
        client = SeatClient(hub, tid, BOB)
        await client.open()
        await play_game(hub, tid)
        over = await hub.snapshot(tid, BOB)
        first = await client.game_events()
        assert first == await client.game_events(upto=over.number)
        assert first[-1].kind == "game_over" and first[0].number == 1
        await hub.new_game(tid, ANN)
        second = await client.game_events()
        assert second[0].data["new_game"] == 2 and second[0].number == over.number + 1
        assert await client.game_events(upto=over.number) == first  # the finished game's
        rounds = [e for e in first if e.kind == "round_over"]
        assert rounds and all(e.round_no == i + 1 for i, e in enumerate(rounds))

    run(main)


def test_the_census_counts_tables_open_in_play_and_finished(tmp_path: Path) -> None:
    """What the server's operator sees of the tables (casino_tables in /metrics)."""
    async def main() -> None:
        hub = make_hub(tmp_path)
        assert hub.census() == {"open": 0, "in_play": 0, "finished": 0}
        await seated_table(hub, start=False)
        playing = await seated_table(hub)
        over = await seated_table(hub, two_people(target=11))
        assert hub.census() == {"open": 1, "in_play": 2, "finished": 0}
        await play_game(hub, over)
        assert hub.census() == {"open": 1, "in_play": 1, "finished": 1}
        assert playing in hub.table_ids()

    run(main)
