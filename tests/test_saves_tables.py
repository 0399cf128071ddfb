"""The save format's table fields: a seat's player identity (``extra.seats[].player``) and a
server table's record (``extra.table``), written, read back, and optional (older files and
readers are unaffected)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from casino_tui.engine import Rules, State
from casino_tui.saves import SaveStore, Seat


def test_a_seats_player_identity_is_kept_and_checked() -> None:
    seat = Seat("Ann", "human", player="SHA256:abc+/=")
    assert seat.to_dict() == {"name": "Ann", "kind": "human", "player": "SHA256:abc+/="}
    assert Seat.from_dict(seat.to_dict()) == seat
    assert Seat.from_dict({"name": "Ann", "kind": "human"}).player is None
    assert "player" not in Seat("Ann").to_dict()
    for bad in ("", "two words", "x" * 201, "tab\there"):
        with pytest.raises(ValueError, match="player identity"):
            Seat("Ann", "human", player=bad)
    with pytest.raises(ValueError, match="only a person's seat"):
        Seat("Bot", "computer", "easy", player="key")


def test_a_tables_record_and_players_go_through_a_save(tmp_path: Path) -> None:
    store = SaveStore(tmp_path)
    seats = [Seat("Ann", "human", player="key-ann"), Seat("Bot", "computer", "easy")]
    slot = store.new_game(seats)
    slot.table = {"id": "t1", "code": "ABC234", "public": False, "started": True}
    state = State(Rules.preset("classic"), 2, seed=4)
    state.apply(state.legal_moves()[0])
    store.autosave(slot, state)
    data = json.loads(slot.path.read_text())
    assert data["extra"]["table"] == slot.table
    assert data["extra"]["seats"][0]["player"] == "key-ann"
    store.close(slot)
    game = store.load(slot.path)
    assert game.table == slot.table and game.seats == tuple(seats)
    assert game.slot is not None and game.slot.table == slot.table
    store.autosave(game.slot, game.state)  # kept by the next save
    assert json.loads(slot.path.read_text())["extra"]["table"] == slot.table
    store.close(game.slot)
    plain = store.new_game([Seat("Ann"), Seat("Bob")])
    store.autosave(plain, State(Rules.preset("classic"), 2, seed=5))
    assert "table" not in json.loads(plain.path.read_text())["extra"]
    assert store.load(plain.path, read_only=True).table is None
