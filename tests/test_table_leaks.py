"""Nothing hidden leaks: everything sent to one seat (and to a spectator) during a whole game
is recorded, and no card of another seat's hand or of the stock appears in it before it is
public. Views and events, from the first snapshot on (an unfiltered first state is a classic
side channel), for two players and for a four-player partnership table; the same through the
hub, with people and computers at the table."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from table_support import Recipient, Recorder, SeededThinker

from casino_tui.saves import SaveStore
from casino_tui.table import GameConfig, SeatConfig, TableController, TableEvent, default_seats
from casino_tui.table.hub import LocalHub, Person, Subscription


def play_whole_game(config: GameConfig, recipients: tuple[Recipient, ...]) -> Recorder:
    ctl = TableController(config)
    rec = Recorder(ctl.state, recipients)
    for who in recipients:  # the first snapshot and the events so far
        rec.send(who, ctl.view_for(who).to_json())
        for event in ctl.events_after(0, who):
            rec.send(who, event.to_json())

    def on_event(event: TableEvent) -> None:
        for who in recipients:
            rec.send(who, event.for_seat(who).to_json())
            rec.send(who, ctl.view_for(who).to_json())

    ctl.listeners.append(on_event)
    rng = random.Random(7)
    thinker = SeededThinker()
    while not ctl.game_over:
        if ctl.round_over:
            ctl.next_round()
            continue
        asyncio.run(ctl.run_computers(thinker))
        seat = ctl.awaiting()
        if seat is None:
            continue
        moves = ctl.view_for(seat).seat_view().legal_moves()  # chosen from the seat's view
        ctl.play(seat, rng.choice(moves))
    rec.state = ctl.state
    assert ctl.state.round_no >= 1 and ctl.events[-1].kind == "game_over"
    return rec


@pytest.mark.parametrize("config", [
    GameConfig(players=2, seats=default_seats(2, humans=2), seed=21),
    GameConfig(preset="draw_cassino", players=2, seats=default_seats(2, humans=1), seed=8),
    GameConfig(players=4, seats=default_seats(4, humans=2), partnerships=True, seed=5),
], ids=["classic-2p", "draw-2p", "classic-4p-partnerships"])
def test_no_hidden_card_reaches_a_seat_or_a_spectator(config: GameConfig) -> None:
    rec = play_whole_game(config, (0, None))
    rec.check()


def test_the_check_finds_a_leak() -> None:
    """The same check on an unfiltered view (another seat's) fails."""
    ctl = TableController(GameConfig(players=2, seats=default_seats(2, humans=2), seed=21))
    rec = Recorder(ctl.state, (0,))
    rec.send(0, ctl.view_for(1).to_json())
    with pytest.raises(AssertionError, match="hidden cards"):
        rec.check()


def test_no_hidden_card_reaches_people_or_a_spectator_through_the_hub(tmp_path: Path) -> None:
    """A four-player partnership table: two people (opponents), two computers and a
    spectator; everything the hub sends one person and the spectator during a whole game."""
    ann, bob, eve = Person("key-ann", "Ann"), Person("key-bob", "Bob"), Person("key-eve", "Eve")

    async def main() -> Recorder:
        hub = LocalHub(SeededThinker(), SaveStore(tmp_path))
        seats = (SeatConfig("South", True), SeatConfig("West", True),
                 SeatConfig("North", False, "easy"), SeatConfig("East", False, "easy"))
        info = await hub.create_table(GameConfig(players=4, seats=seats, target=11, seed=3),
                                      ann)
        tid = info.table_id
        await hub.join(info.code, bob)
        assert await hub.take_seat(tid, bob) == 1
        await hub.spectate(tid, eve)
        ctl = hub.controller(tid)
        rec = Recorder(ctl.state, (0, None))
        who_of = {ann.id: 0, eve.id: None}
        subs: dict[str, Subscription] = {}
        for p in (ann, eve):
            rec.send(who_of[p.id], (await hub.snapshot(tid, p)).to_json())
            subs[p.id] = await hub.subscribe(tid, p, 0)

        def drain() -> None:
            for pid, sub in subs.items():
                assert not sub.lost
                for event in sub.ready():
                    rec.send(who_of[pid], event.to_json())

        await hub.start(tid, ann)
        rng = random.Random(4)
        while True:
            await hub.idle(tid)
            drain()
            rec.state = ctl.state
            if ctl.game_over:
                break
            if ctl.round_over:
                await hub.next_round(tid, ann)
                await hub.next_round(tid, bob)
                continue
            seat = ctl.to_move
            person = ann if seat == 0 else bob
            view = await hub.snapshot(tid, person)
            for p in (ann, eve):
                rec.send(who_of[p.id], (await hub.snapshot(tid, p)).to_json())
            move = rng.choice(view.seat_view().legal_moves())
            for event in await hub.submit_move(tid, person, view.to_move or 0, move):
                if person is ann:
                    rec.send(0, event.to_json())
        hub.shutdown()
        return rec

    rec = asyncio.run(main())
    assert any(m[0] is None for m in rec.sent) and any(m[0] == 0 for m in rec.sent)
    rec.check()
