"""The table controller without any UI: turns, refusals, computer turns, autosave, events and
views (and their JSON forms)."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from pathlib import Path

import pytest
from table_support import BrokenThinker, SeededThinker

from casino_tui.engine import IllegalMoveError, Move, State
from casino_tui.saves import SaveStore
from casino_tui.table import (
    GameConfig,
    MoveRefused,
    SeatConfig,
    TableController,
    TableEvent,
    TableView,
    default_seats,
    save_seats,
)
from casino_tui.table.codec import move_event_to_json


def people(n: int = 2, **kw: object) -> GameConfig:
    return GameConfig(players=n, seats=default_seats(n, humans=n), seed=11, **kw)  # type: ignore[arg-type]


def one_person(n: int = 2, **kw: object) -> GameConfig:
    return GameConfig(players=n, seats=default_seats(n, humans=1), seed=11, **kw)  # type: ignore[arg-type]


def play_out(ctl: TableController, rounds: int = 99) -> None:
    """Play first legal moves for everyone (people too) until the game ends."""
    while not ctl.game_over and ctl.state.round_no <= rounds:
        if ctl.round_over:
            ctl.next_round()
            continue
        seat = ctl.to_move
        assert seat is not None
        ctl.play(seat, ctl.state.legal_moves()[0])


def test_turns_go_round_the_table_and_a_move_out_of_turn_is_refused() -> None:
    ctl = TableController(people(3))
    first = ctl.to_move
    assert first is not None and ctl.awaiting() == first
    other = (first + 1) % 3
    before = len(ctl.state.history)
    with pytest.raises(MoveRefused) as err:
        ctl.play(other, ctl.state.legal_moves()[0])
    assert err.value.reason == f"it is {ctl.names[first]}'s turn: wait for your turn"
    assert isinstance(err.value, IllegalMoveError)
    assert len(ctl.state.history) == before
    ctl.play(first, ctl.state.legal_moves()[0])
    assert ctl.to_move == other


def test_an_illegal_move_is_refused_with_the_engines_reason_and_changes_nothing() -> None:
    ctl = TableController(people())
    seat = ctl.to_move
    assert seat is not None
    elsewhere = next(c for c in ctl.state.rules.deck_cards if c not in ctl.state.hands[seat])
    number = ctl.number
    with pytest.raises(MoveRefused) as err:
        ctl.play(seat, Move.trail(elsewhere))
    assert "hand" in err.value.reason
    with pytest.raises(MoveRefused):
        ctl.play(seat, Move.capture(ctl.state.hands[seat][0], (0, 1, 2, 3)))
    assert ctl.number == number and not ctl.state.history


def test_a_move_for_a_seat_that_is_not_to_move_or_not_at_the_table_is_refused() -> None:
    ctl = TableController(people())
    for seat in (-1, 7):
        with pytest.raises(MoveRefused):
            ctl.play(seat, ctl.state.legal_moves()[0])
    with pytest.raises(ValueError):
        ctl.view_for(7)


def test_computers_play_through_the_thinker_until_a_person_is_to_move() -> None:
    ctl = TableController(one_person(4))
    thinker = SeededThinker()
    for _ in range(12):
        asyncio.run(ctl.run_computers(thinker))
        if ctl.round_over or ctl.game_over:
            break
        assert ctl.awaiting() == 0 and ctl.computer_turn() is None
        ctl.play(0, ctl.state.legal_moves()[0])
        turn = ctl.computer_turn()
        assert turn is not None and turn.seat == 1 and turn.view.seat == 1
        assert turn.level == "medium" and turn.view.hand == tuple(ctl.state.hands[1])
    assert thinker.calls >= 30
    seats = [e.seat for e in ctl.events if e.kind == "move"]
    assert all((b - a) % 4 == 1 for a, b in itertools.pairwise(seats))


def test_a_failing_computer_plays_a_random_legal_move_and_says_so() -> None:
    for thinker in (BrokenThinker(), BrokenThinker(illegal=True)):
        ctl = TableController(GameConfig(seats=default_seats(2, humans=0), seed=3))
        events = asyncio.run(ctl.run_computers(thinker))
        assert ctl.round_over
        notes = [e for e in ctl.events if e.kind == "note"]
        assert notes and notes[0].text.startswith("The computer player failed (")
        assert notes[0].text.endswith("it played a random move")
        assert sum(1 for e in events if e.kind == "move") == len(ctl.state.history)


def test_a_computer_answer_for_an_older_position_is_not_played() -> None:
    ctl = TableController(GameConfig(seats=(SeatConfig("A", False), SeatConfig("B", False)),
                                     seed=4))
    turn = ctl.computer_turn()
    assert turn is not None
    ctl.play(turn.seat, ctl.state.legal_moves()[0])  # the game moved on meanwhile
    assert ctl.play_computer(turn, turn.view.legal_moves()[0]) == []


def test_events_are_numbered_and_a_whole_game_has_rounds_and_an_end() -> None:
    ctl = TableController(people(target=11))
    play_out(ctl)
    assert [e.number for e in ctl.events] == list(range(1, ctl.number + 1))
    kinds = [e.kind for e in ctl.events]
    rounds = ctl.state.round_no
    assert kinds.count("round_start") == rounds and kinds.count("round_over") == rounds
    assert kinds[-1] == "game_over" and kinds.count("game_over") == 1
    assert ctl.events[-1].data == {"winner": ctl.state.winner, "scores": ctl.state.scores}
    assert kinds.count("move") == len(ctl.state.history)
    with pytest.raises(MoveRefused):
        ctl.next_round()


def test_events_and_views_are_plain_json_and_read_back_the_same() -> None:
    ctl = TableController(GameConfig(preset="draw_cassino", players=4,
                                     seats=default_seats(4, humans=4), seed=2))
    play_out(ctl, rounds=1)
    for event in ctl.events:
        text = json.dumps(event.to_json())
        assert TableEvent.from_json(json.loads(text)).to_json() == event.to_json()
    for seat in (0, 1, 2, 3, None):
        view = ctl.view_for(seat)
        assert TableView.from_json(json.loads(json.dumps(view.to_json()))) == view
    with pytest.raises(ValueError):
        TableEvent.from_json({"kind": "shout", "number": 1, "round": 1})
    with pytest.raises(ValueError):
        TableView.from_json({"seat": 0})


def test_a_seats_view_shows_its_own_hand_only_and_a_spectator_none() -> None:
    ctl = TableController(people(4))
    st = ctl.state
    for seat in range(4):
        view = ctl.view_for(seat)
        assert view.hand == tuple(st.hands[seat])
        assert view.hand_sizes == tuple(len(h) for h in st.hands)
        assert view.seat_view().legal_moves() == (st.legal_moves() if st.to_move == seat
                                                  else [])
    spectator = ctl.view_for(None)
    assert spectator.seat is None and spectator.hand == ()
    assert spectator.stock_size == len(st.stock)
    with pytest.raises(ValueError):
        spectator.seat_view()


def test_a_drawn_card_is_only_in_the_drawers_copy_of_the_event() -> None:
    ctl = TableController(GameConfig(preset="draw_cassino", players=2,
                                     seats=default_seats(2, humans=2), seed=9))
    seat = ctl.to_move
    assert seat is not None
    [event] = [e for e in ctl.play(seat, ctl.state.legal_moves()[0]) if e.kind == "move"]
    assert event.move is not None and event.move.drew is not None
    mine = event.for_seat(seat)
    assert mine.move is not None and mine.move.drew == event.move.drew
    for other in ((seat + 1) % 2, None):
        theirs = event.for_seat(other)
        assert theirs.move is not None and theirs.move.drew is None
        assert move_event_to_json(theirs.move)["captured"] == \
            move_event_to_json(event.move)["captured"]
    assert ctl.events_after(event.number - 1, (seat + 1) % 2)[0].move.drew is None  # type: ignore[union-attr]


def test_a_resumed_controller_rebuilds_the_same_events() -> None:
    live = TableController(people(target=11))
    play_out(live, rounds=2)
    from casino_tui.engine.serialize import game_from_dict, game_to_dict

    saved: State = game_from_dict(game_to_dict(live.state))
    resumed = TableController(people(target=11), saved, resumed=True)
    assert [e.to_json() for e in resumed.events] == [e.to_json() for e in live.events]


def test_every_move_and_round_is_autosaved(tmp_path: Path) -> None:
    store = SaveStore(tmp_path)
    config = people()
    ctl = TableController(config)
    ctl.store, ctl.slot = store, store.new_game(save_seats(config, 2))
    assert ctl.save_now() is None and ctl.slot.saved
    for _ in range(5):
        seat = ctl.to_move
        assert seat is not None
        ctl.play(seat, ctl.state.legal_moves()[0])
        game = store.load(ctl.slot.path, read_only=True)
        assert game.state.history == ctl.state.history
    while not ctl.round_over:
        seat = ctl.to_move
        assert seat is not None
        ctl.play(seat, ctl.state.legal_moves()[0])
    assert store.load(ctl.slot.path, read_only=True).state.is_round_over
    ctl.next_round()
    game = store.load(ctl.slot.path, read_only=True)
    assert game.state.round_no == 2 and game.state.history == ctl.state.history
    assert ctl.take_notice() is None
    ctl.close()
    assert ctl.slot.closed


def test_deferred_saves_are_written_when_asked_and_never_fall_two_moves_behind(
        tmp_path: Path) -> None:
    """A game screen defers the autosave until its move is on the screen: the save becomes due
    (said once until written), nothing is written until flush_save; a save still due is written
    before the next move is taken (so the file is at most one move behind), by save_now, and
    when the table closes."""
    store = SaveStore(tmp_path)
    config = people()
    ctl = TableController(config)
    ctl.store, ctl.slot = store, store.new_game(save_seats(config, 2))
    due: list[int] = []
    ctl.defer_saves(lambda: due.append(len(ctl.state.history)))
    assert ctl.save_now() is None and ctl.slot.saved and not ctl.save_due

    def saved() -> int:
        return len(store.load(ctl.slot.path, read_only=True).state.history)

    def play() -> None:
        seat = ctl.to_move
        assert seat is not None
        ctl.play(seat, ctl.state.legal_moves()[0])

    play()
    assert ctl.save_due and due == [1] and saved() == 0  # due, not written
    assert ctl.flush_save() is None and not ctl.save_due and saved() == 1
    assert ctl.flush_save() is None and saved() == 1  # nothing due: nothing written
    play()
    play()  # the move before is written first: one move behind at most
    assert due == [1, 2, 3] and saved() == 2 and ctl.save_due
    ctl.save_now()
    assert not ctl.save_due and saved() == 3
    while not ctl.round_over:
        play()
    ctl.next_round()
    assert ctl.save_due
    ctl.close()  # writes the save that is due, then releases the file
    game = store.load(ctl.slot.path, read_only=True)
    assert game.state.round_no == 2 and game.state.history == ctl.state.history
    assert ctl.slot.closed and not ctl.save_due


def test_saving_in_background_does_not_wait_for_the_disk_and_keeps_the_last_move(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hub serving many tables saves in a thread: a move is taken while the file of the move
    before is still being written, and closing the table waits until the file holds every
    move."""
    store = SaveStore(tmp_path)
    config = people()
    ctl = TableController(config)
    ctl.store, ctl.slot = store, store.new_game(save_seats(config, 2))
    ctl.save_in_background()
    assert ctl.saver is not None
    gate = threading.Event()
    writing = threading.Event()
    saved_lengths: list[int] = []
    autosave = store.autosave

    def slow_autosave(slot: object, state: State) -> None:
        writing.set()
        assert gate.wait(20)  # the disk is slow
        saved_lengths.append(len(state.history))
        autosave(slot, state)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "autosave", slow_autosave)
    ctl.save_now()
    assert writing.wait(20)
    for _ in range(6):  # every move is taken while the first save is still being written
        seat = ctl.to_move
        assert seat is not None
        ctl.play(seat, ctl.state.legal_moves()[0])
    assert saved_lengths == []
    gate.set()
    ctl.close()  # waits for the last save
    assert saved_lengths[0] == 0 and saved_lengths[-1] == 6
    assert len(saved_lengths) <= 3  # the moves made while it wrote are saved together
    game = store.load(ctl.slot.path, read_only=True)
    assert game.state.history == ctl.state.history
    assert ctl.slot.closed
    assert ctl.take_notice() is None
