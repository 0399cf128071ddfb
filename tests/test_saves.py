"""Saved games (casino_tui.saves): autosave, listing, loading, bad files, disk problems, locks.

Every test works in its own temporary directory; none touches the real home directory.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap
import time
import zlib
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from saves_support import FOUR, TWO, play, read_only_folder, saved_game

from casino_tui import saves
from casino_tui.ai import LEVELS, choose_move
from casino_tui.engine import Rules, State
from casino_tui.engine.notation import format_position
from casino_tui.engine.serialize import FORMAT_NAME, FORMAT_VERSION, game_from_dict
from casino_tui.saves import (
    DATA_ENV,
    MAX_SAVE_BYTES,
    GameInUseError,
    SaveEntry,
    SaveError,
    SaveStore,
    Seat,
    data_dir,
    open_store,
)

CLASSIC = Rules.preset("classic")


class Clock:
    """A clock that moves on a minute at every reading."""

    def __init__(self) -> None:
        self.t = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.t += timedelta(minutes=1)
        return self.t


@pytest.fixture(autouse=True)
def _private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point every default directory into the test's own temporary directory."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home" / "data"))
    monkeypatch.delenv(DATA_ENV, raising=False)


@pytest.fixture
def store(tmp_path: Path) -> SaveStore:
    return SaveStore(tmp_path / "data" / "games", clock=Clock())


def same_game(a: State, b: State) -> None:
    assert format_position(a) == format_position(b)
    assert a.history == b.history
    assert [s.totals for s in a.round_summaries] == [s.totals for s in b.round_summaries]


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file's bytes and modification time (to show nothing was changed)."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in root.iterdir()
            if p.is_file()}


# ----------------------------------------------------------------------------- directories
def test_data_dir_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    default = data_dir()
    assert default == tmp_path / "home" / "data" / "casino-tui"  # platformdirs, XDG_DATA_HOME
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "env"))
    assert data_dir() == tmp_path / "env"
    assert data_dir(str(tmp_path / "cli")) == tmp_path / "cli"  # --data-dir beats the variable
    assert open_store(str(tmp_path / "cli")).root == tmp_path / "cli" / "games"
    assert open_store().root == tmp_path / "env" / "games"
    assert not (tmp_path / "env").exists()  # nothing is created before the first save


def test_levels_are_the_computer_levels() -> None:
    assert saves.LEVELS == LEVELS


def test_seats_are_checked() -> None:
    assert Seat.computer("Bob", "hard").to_dict() == {"name": "Bob", "kind": "computer",
                                                      "level": "hard"}
    assert Seat.from_dict({"name": " Ann ", "kind": "human"}) == Seat.human("Ann")
    for bad in ({"name": "Bob", "kind": "computer"}, {"name": "Bob", "kind": "robot"},
                {"name": "Bob", "kind": "computer", "level": "genius"},
                {"name": "Ann", "kind": "human", "level": "easy"},
                {"name": "", "kind": "human"}, {"name": "A\x1b[2J", "kind": "human"},
                {"name": "x" * 61, "kind": "human"}, {"name": 7, "kind": "human"}, ["Ann"]):
        with pytest.raises(ValueError):
            Seat.from_dict(bad)


# ----------------------------------------------------------------------------- saving
def test_new_game_writes_nothing_until_the_first_autosave(store: SaveStore) -> None:
    slot = store.new_game(TWO, "Train game")
    assert not store.root.exists() and not slot.saved
    state = State(CLASSIC, 2, seed=11)
    store.autosave(slot, state)
    assert slot.saved and slot.last_error is None
    files = sorted(os.listdir(store.root))
    assert files == [f".{slot.game_id}.lock", slot.path.name]
    data = json.loads(slot.path.read_text())
    assert data["format"] == FORMAT_NAME and data["version"] == FORMAT_VERSION
    assert data["rules"] == {"preset": "classic", "overrides": {}}
    assert data["seed"] == 11 and data["moves"] == []
    extra = data["extra"]
    assert extra["name"] == "Train game"
    assert extra["seats"] == [{"name": "Ann", "kind": "human"},
                              {"name": "Bob", "kind": "computer", "level": "medium"}]
    assert extra["created"] == "2025-01-01T12:01:00.000Z"
    assert extra["updated"] == "2025-01-01T12:02:00.000Z"
    same_game(game_from_dict(data), state)  # a plain serialize record


def test_autosave_after_every_move_keeps_the_previous_version(store: SaveStore) -> None:
    slot, state = saved_game(store, 0)
    before = slot.path.read_bytes()
    play(state, 1, seed=1)
    store.autosave(slot, state)
    bak = slot.path.with_name(slot.path.name + ".bak")
    assert bak.read_bytes() == before  # the last good version
    assert len(json.loads(slot.path.read_text())["moves"]) == 1
    assert not [n for n in os.listdir(store.root) if n.endswith(".tmp")]


def test_the_file_is_the_text_json_writes(store: SaveStore,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Strings and numbers are written without json.dumps where it would write them as they
    are: the file is byte for byte what json.dumps makes of every value, whatever the names
    hold (quotes, backslashes, cards, a line separator), and reads back."""
    from casino_tui.saves import fileformat

    seats = [Seat('Ann "A" \\ 10♠', "human"), Seat("Bob\u2028/é", "computer", "easy")]
    slot = store.new_game(seats, 'a "quoted" \\ name ♥')
    state = State(Rules.preset("royal", target=11), 2, seed=11)
    play(state, 30, seed=1)
    store.autosave(slot, state)
    written = slot.path.read_bytes()
    when = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    ours = fileformat._game_to_bytes(state, slot, when)
    monkeypatch.setattr(fileformat, "_compact",
                        lambda value: json.dumps(value, ensure_ascii=False))
    assert fileformat._game_to_bytes(state, slot, when) == ours
    data = json.loads(written)
    assert [s["name"] for s in data["extra"]["seats"]] == [s.name for s in seats]
    assert data["extra"]["name"] == slot.name and data["rules"]["overrides"] == {"target": 11}
    assert len(data["moves"]) == 30
    for value in ("plain", 'q"', "b\\", "é♠", "\u2028", "\x7f", "", 0, -7, 10**20, True, None,
                  1.5, ["x", 1], {"k": "v"}):
        assert fileformat._compact(value) == json.dumps(value, ensure_ascii=False)


def test_lists_and_objects_remembered_by_their_repr_are_written_as_json_writes_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The text of lists and objects is remembered by their repr: values that are equal in
    Python but not in JSON (1, True, 1.0, "1") still get their own text, seen first or again,
    and the memory is bounded."""
    from casino_tui.saves import fileformat

    values: list[Any] = [[1], [True], [1.0], ["1"], [None], [], {}, {"a": 1}, {"a": True},
                         {"a": [0, 1]}, [[0], [1]], [[0, 2], [1, 3]], ["q\"", "é♠\u2028"],
                         [{"name": "Ann", "kind": "human"}], {"1": 1}, [10**20, -0.0],
                         (1, 2), [(1, 2)], True, False, None, 0, 1, "1"]
    for _ in range(2):  # written, then remembered
        for value in values:
            assert fileformat._compact(value) == json.dumps(value, ensure_ascii=False), value
    monkeypatch.setattr(fileformat, "_CONTAINER_TEXT_MAX", 8)
    for n in range(40):
        assert fileformat._compact([n, True]) == f"[{n}, true]"
        assert fileformat._compact({"n": n}) == f'{{"n": {n}}}'
    assert len(fileformat._CONTAINER_TEXT) <= 8


def test_the_moves_are_written_as_json_writes_each_one() -> None:
    """The moves are one join when none needs escaping: the text is still, byte for byte,
    each move as json.dumps writes it, one a line, for any list a record may hold."""
    from casino_tui.saves import fileformat

    class Notation(str):
        pass

    def reference(moves: list[Any]) -> str:
        return ",\n".join(f"  {json.dumps(m, ensure_ascii=False)}" for m in moves)

    for moves in (["7Sx2D+5S", "QSxQH", "5D"], ["x"], [""], ["10H", "a\"b"], ["c\\d", "e"],
                  ["new\nline", "tab\t"], ["\x00", "\x7f", "é♠\u2028"], ["ok", 3, None],
                  [1, 2], [["nested"], {"k": "v"}], [Notation("AS"), "2C"], [True, "x"]):
        assert fileformat._move_lines(moves) == reference(moves), moves
        data = {"format": FORMAT_NAME, "moves": moves, "seed": 1}
        text = fileformat._encode(data).decode()
        assert text == ('{\n "format": ' + json.dumps(FORMAT_NAME) + ',\n "moves": [\n'
                        + reference(moves) + '\n ],\n "seed": 1\n}\n')
        assert json.loads(text)["moves"] == moves


def test_rules_overrides_are_a_new_dict_each_time() -> None:
    """The rules' overrides are found once and handed out as new objects (a caller may change
    them)."""
    order = ["most_S", "cards", "big_casino", "little_casino", "ace_S", "ace_C", "ace_H",
             "ace_D", "sweeps"]
    rules = Rules.preset("classic", target=11, count_out_order=tuple(order))
    first = rules.overrides()
    assert first == {"target": 11, "count_out_order": order}
    first["target"] = 99
    first["count_out_order"].append("x")
    assert rules.overrides() == {"target": 11, "count_out_order": order}
    assert rules.to_dict() == {"preset": "classic", "overrides": rules.overrides()}
    assert Rules.preset("classic").overrides() == {}


def test_a_backup_left_half_made_is_replaced_by_the_next_save(store: SaveStore) -> None:
    """A ``.<id>.json.bak.tmp`` in the way (a save killed between linking and renaming its
    backup) does not stop the backup: the next save replaces it and keeps the version before
    it as the backup."""
    slot, state = saved_game(store, 2)
    before = slot.path.read_bytes()
    stale = slot.path.with_name(f".{slot.path.name}.bak.tmp")
    stale.write_bytes(b"half a backup")
    play(state, 1, seed=5)
    store.autosave(slot, state)
    assert slot.path.with_name(slot.path.name + ".bak").read_bytes() == before
    assert not stale.exists()
    assert len(json.loads(slot.path.read_text())["moves"]) == len(state.history)


def test_a_game_file_deleted_by_hand_is_written_again(store: SaveStore) -> None:
    """A game whose file was deleted while it was played is saved again, and its backup (the
    version before the one deleted) stays as it was."""
    slot, state = saved_game(store, 2)
    play(state, 1, seed=5)
    store.autosave(slot, state)
    bak = slot.path.with_name(slot.path.name + ".bak")
    backup = bak.read_bytes()
    slot.path.unlink()
    play(state, 1, seed=6)
    store.autosave(slot, state)
    assert bak.read_bytes() == backup
    assert len(json.loads(slot.path.read_text())["moves"]) == len(state.history)
    assert not [n for n in os.listdir(store.root) if n.endswith(".tmp")]


def test_ids_are_unique_and_names_are_checked(store: SaveStore) -> None:
    slots = [store.new_game(TWO) for _ in range(5)]
    assert len({s.path for s in slots}) == 5
    with pytest.raises(SaveError) as err:
        store.new_game(TWO, "bad\nname")
    assert err.value.kind == "invalid" and "control characters" in str(err.value)
    assert store.new_game(TWO, "   ").name is None
    with pytest.raises(ValueError):  # a programming error, not a player's problem
        store.autosave(store.new_game(FOUR), State(CLASSIC, 2, seed=1))


def test_colliding_ids_get_a_new_one(tmp_path: Path) -> None:
    store = SaveStore(tmp_path, new_id=lambda _t: "same")
    a, b = store.new_game(TWO), store.new_game(TWO)
    assert a.path == b.path
    store.autosave(a, State(CLASSIC, 2, seed=1))
    store.autosave(b, State(CLASSIC, 2, seed=2))
    assert a.path != b.path
    assert store.load(a.path, read_only=True).state.seed == 1
    assert store.load(b.path, read_only=True).state.seed == 2


def test_a_game_that_cannot_be_replayed_is_a_save_error(store: SaveStore) -> None:
    state = State(CLASSIC, 2, seed=1)
    play(state, 3)
    state.history.pop()  # the history no longer leads to the position
    slot = store.new_game(TWO)
    with pytest.raises(SaveError) as err:
        store.autosave(slot, state)
    assert err.value.kind == "cannot_save" and slot.last_error is err.value


def test_start_position_games_round_trip(store: SaveStore) -> None:
    base = State(CLASSIC, 2, seed=5)
    play(base, 6, seed=2)
    text = format_position(base)
    from casino_tui.engine.notation import parse_position

    state = parse_position(text, CLASSIC)
    slot = store.new_game(TWO, start_position=text)
    play(state, 5, seed=3, store=store, slot=slot)
    store.close(slot)
    game = store.load(slot.path)
    assert game.start_position == text and game.slot is not None
    same_game(game.state, state)


# ----------------------------------------------------------------------------- loading
def test_load_resumes_exactly_computer_players_included(store: SaveStore) -> None:
    """A four-player game saved and re-opened after every few moves plays exactly the same
    moves as the same game played without interruption."""
    rules = Rules.preset("classic", target=11)
    levels = ["easy", "easy", "medium", "random"]
    seats = tuple(Seat.computer(f"P{i}", lv) for i, lv in enumerate(levels))

    def step(state: State) -> None:
        if state.is_round_over:
            state.next_round()
            return
        seat = state.current_player
        assert seat is not None
        seed = zlib.crc32(f"{state.seed}/{state.round_no}/{len(state.history)}".encode())
        state.apply(choose_move(state.view(seat), levels[seat], seed=seed))

    straight = State(rules, 4, seed=99)
    while not straight.is_game_over:
        step(straight)
    state = State(rules, 4, seed=99)
    slot = store.new_game(seats, "Resume")
    store.autosave(slot, state)
    count = 0
    while not state.is_game_over:
        step(state)
        store.autosave(slot, state)
        count += 1
        if count % 9 == 0:  # quit and Continue
            store.close(slot)
            entry = store.latest_unfinished()
            assert entry is not None and entry.path == slot.path
            game = store.load(entry)
            assert game.seats == seats and game.name == "Resume" and game.slot is not None
            same_game(game.state, state)
            state, slot = game.state, game.slot
    same_game(state, straight)
    assert store.latest_unfinished() is None  # finished games are not continued
    [entry] = store.entries()
    assert entry.finished and entry.winner == straight.winner
    assert entry.winner_name == " & ".join(f"P{s}" for s in straight.sides[straight.winner or 0])


def test_round_over_positions_resume(store: SaveStore) -> None:
    state = State(CLASSIC, 3, seed=4)
    slot = store.new_game((*TWO, Seat.human("Cy")))
    while not state.is_round_over:
        play(state, 1)
    store.autosave(slot, state)
    store.close(slot)
    game = store.load(slot.path)
    assert game.state.is_round_over
    same_game(game.state, state)
    assert game.slot is not None
    game.state.next_round()  # the app starts the next round and saves
    store.autosave(game.slot, game.state)
    store.close(game.slot)
    assert store.load(slot.path, read_only=True).state.round_no == 2


@pytest.mark.parametrize("new_round", [False, True])
def test_saves_without_a_position_at_a_round_end(store: SaveStore, new_round: bool) -> None:
    """``position`` is optional: without it, a game saved when a round ended, or just after
    the next round was dealt (which no move shows: the summary's round does), still loads."""
    state = State(CLASSIC, 2, seed=4)
    slot = store.new_game(TWO)
    while not state.is_round_over:
        play(state, 1)
    if new_round:
        state.next_round()
    store.autosave(slot, state)
    store.close(slot)
    data = json.loads(slot.path.read_text())
    del data["position"]
    slot.path.write_text(json.dumps(data))
    [entry] = store.entries()
    assert entry.ok, entry.error
    assert entry.round_no == (2 if new_round else 1)
    game = store.load(entry)
    same_game(game.state, state)
    assert game.state.is_round_over != new_round
    store.close(game.slot)
    # a summary that does not follow from the moves is still refused
    data["summary"]["round"] = 3
    slot.path.write_text(json.dumps(data))
    slot.path.with_name(slot.path.name + ".bak").unlink(missing_ok=True)
    error = SaveStore(store.root).entry(slot.path).error
    assert error is not None and "summary does not match" in error


def test_load_missing_file(store: SaveStore, tmp_path: Path) -> None:
    with pytest.raises(SaveError) as err:
        store.load(tmp_path / "nope.json")
    assert err.value.kind == "not_found" and "no saved game" in str(err.value)


def test_a_save_that_begins_with_a_byte_order_mark_is_read(store: SaveStore,
                                                          tmp_path: Path) -> None:
    """Some editors (Notepad) write UTF-8 with a byte-order mark: the game is the same."""
    other = SaveStore(tmp_path / "elsewhere")
    slot, state = saved_game(other, 8)
    other.close(slot)
    marked = tmp_path / "marked.json"
    marked.write_bytes(b"\xef\xbb\xbf" + slot.path.read_bytes())
    game = store.load(str(marked))
    same_game(game.state, state)
    assert game.name == "Train"
    only_mark = tmp_path / "only-mark.json"
    only_mark.write_bytes(b"\xef\xbb\xbf\n")
    with pytest.raises(SaveError, match="the file is empty"):
        store.load(str(only_mark))


def test_a_target_as_high_as_the_command_line_takes_is_saved_and_read(
        store: SaveStore) -> None:
    from casino_tui.table import MAX_TARGET

    rules = Rules.preset("classic", target=MAX_TARGET)
    slot, _state = saved_game(store, 4, rules=rules)
    store.close(slot)
    [entry] = store.entries()
    assert entry.target == MAX_TARGET and store.load(entry.path).state.rules.target == MAX_TARGET


def test_loading_a_file_from_elsewhere_imports_it(store: SaveStore, tmp_path: Path) -> None:
    other = SaveStore(tmp_path / "elsewhere")
    slot, _state = saved_game(other, 8)
    other.close(slot)
    outside = tmp_path / "copy.json"
    outside.write_bytes(slot.path.read_bytes())
    before = outside.read_bytes()
    game = store.load(str(outside))
    assert game.slot is not None and game.slot.path.parent == store.root
    assert game.notice and "not changed" in game.notice
    play(game.state, 2, seed=5)
    store.autosave(game.slot, game.state)
    assert outside.read_bytes() == before  # --load never writes the file it was given
    [entry] = store.entries()
    assert entry.name == "Train" and entry.moves == len(game.state.history)


def test_the_same_game_twice_in_one_window(store: SaveStore) -> None:
    slot, _state = saved_game(store, 2)
    with pytest.raises(SaveError) as err:
        store.load(slot.path)
    assert err.value.kind == "in_use"
    assert store.load(slot.path, read_only=True).read_only


# ----------------------------------------------------------------------------- listing
def test_entries_list_everything_newest_first(store: SaveStore) -> None:
    a, sa = saved_game(store, 10, seed=1, name="First")
    b, _sb = saved_game(store, 4, seed=2, name=None, seats=FOUR)
    finished = State(Rules.preset("classic", target=5), 2, seed=8)
    c = store.new_game(TWO, "Done")
    play(finished, 10_000, seed=1)
    store.autosave(c, finished)
    for s in (a, b, c):
        store.close(s)
    (store.root / "junk.json").write_text("not a save")
    odd = os.fsencode(store.root) + b"/odd\xff.json"
    with open(odd, "wb"):
        pass
    entries = store.entries()
    assert [e.path for e in entries[:3]] == [c.path, b.path, a.path]  # last played first
    assert {e.path.name for e in entries[3:]} == {"junk.json", "odd\udcff.json"}
    assert not entries[3].ok and not entries[4].ok
    assert {e.title for e in entries[3:]} == {"junk", "odd\ufffd"}  # printable
    first = entries[2]
    assert (first.name, first.preset, first.num_players, first.title) == ("First", "classic",
                                                                          2, "First")
    assert first.player_names == ["Ann", "Bob"] and first.seats == TWO
    assert first.scores == tuple(sa.scores) and first.round_no == sa.round_no
    assert first.moves == 10 and first.to_move == sa.current_player and first.verified
    assert first.updated is not None and first.created is not None
    assert first.created < first.updated == first.last_played
    four = entries[1]
    assert four.name is None and four.title.startswith("Standard Cassino · you & Hard vs ")
    assert four.sides == ((0, 2), (1, 3)) and four.side_names() == ["South & North",
                                                                     "West & East"]
    done = entries[0]
    assert done.finished and done.winner == finished.winner and done.winner_name in ("Ann",
                                                                                    "Bob")
    assert store.latest_unfinished() == store.entry(b.path)


def test_listing_is_quick_after_the_first_check(store: SaveStore,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    for seed in range(3):
        slot, _ = saved_game(store, 6, seed=seed)
        store.close(slot)
    calls: list[int] = []
    real = saves.fileformat.game_from_dict

    def counting(data: Any) -> State:
        calls.append(1)
        return real(data)

    monkeypatch.setattr(saves.fileformat, "game_from_dict", counting)
    fresh = SaveStore(store.root)  # another run of the app
    assert all(e.ok for e in fresh.entries())
    assert len(calls) == 3  # each file replayed once...
    fresh.entries()
    SaveStore(store.root).entries()  # ...and remembered, in memory and on disk
    assert len(calls) == 3
    assert len(store.entries()) == 3 and len(calls) == 3  # its own saves are known good
    # a damaged cache is ignored: the files are checked again
    (store.root / ".verified.json").write_text("{broken")
    assert all(e.ok for e in SaveStore(store.root).entries()) and len(calls) == 6
    assert store.entries(verify=False)[0].verified is False


def test_latest_unfinished_skips_damaged_and_finished_games(store: SaveStore) -> None:
    assert store.latest_unfinished() is None
    good, _ = saved_game(store, 3, seed=1)
    store.close(good)
    bad, _ = saved_game(store, 3, seed=2)
    store.close(bad)
    data = json.loads(bad.path.read_text())
    data["moves"][1] = "KSxKH"  # does not replay
    bad.path.write_text(json.dumps(data))
    Path(str(bad.path) + ".bak").unlink()
    assert store.latest_unfinished() == store.entry(good.path)


# ----------------------------------------------------------------------------- bad files
def _valid_save(store: SaveStore, moves: int = 10) -> dict[str, Any]:
    slot, _ = saved_game(store, moves, seed=6)
    store.close(slot)
    data: dict[str, Any] = json.loads(slot.path.read_text())
    store.delete(slot.path)
    return data


def _dup_card(data: dict[str, Any]) -> None:
    pos = data["position"]
    table = pos.split("table=")[1].split(" ")[0]
    first = table.split(",")[0].strip("[]")
    hands = pos.split("hands=")[1].split(" ")[0]
    data["position"] = pos.replace(f"hands={hands}", f"hands={first}{hands}")


def _drop_card(data: dict[str, Any]) -> None:
    pos = data["position"]
    stock = pos.split("stock=")[1].split(" ")[0]
    data["position"] = pos.replace(f"stock={stock}", f"stock={stock[2:]}")


def _edit(fn: Any) -> Any:
    def make(data: dict[str, Any]) -> bytes:
        fn(data)
        return json.dumps(data).encode()
    return make


BAD_FILES: dict[str, tuple[Any, str]] = {
    "empty": (lambda d: b"", "empty"),
    "blank": (lambda d: b"  \n", "empty"),
    "truncated": (lambda d: json.dumps(d, indent=1).encode()[:300], "cut short"),
    "not json": (lambda d: b"hello, world", "not valid JSON"),
    "binary": (lambda d: bytes(range(256)), "not text"),
    "a list": (lambda d: b"[1, 2, 3]", "not a casino-tui saved game"),
    "wrong format": (_edit(lambda d: d.update(format="chess-pgn")),
                     "not a casino-tui saved game"),
    "newer version": (_edit(lambda d: d.update(version=FORMAT_VERSION + 1)), "newer casino-tui"),
    "bad rules": (_edit(lambda d: d["rules"].update(preset="snap")), "rules"),
    "illegal history": (_edit(lambda d: d["moves"].__setitem__(2, d["moves"][0])),
                        "cannot be replayed"),
    "moves removed": (_edit(lambda d: d["moves"].pop()), "does not reach the saved position"),
    "duplicated card": (_edit(_dup_card), "appears twice"),
    "missing card": (_edit(_drop_card), "missing"),
    "edited score": (_edit(lambda d: d["summary"].update(scores=[20, 0])),
                     "summary does not match"),
    "no summary": (_edit(lambda d: d.pop("summary")), "summary is missing"),
    "bad seats": (_edit(lambda d: d["extra"].update(seats=[{"name": "A", "kind": "human"}])),
                  "list of players"),
    "bad level": (_edit(lambda d: d["extra"]["seats"][1].update(level="godlike")),
                  "level"),
    "deep nesting": (lambda d: b"[" * 100_000 + b"]" * 100_000, "not valid JSON"),
}


@pytest.mark.parametrize("kind", list(BAD_FILES))
def test_bad_files_are_listed_with_the_reason_and_never_touched(store: SaveStore,
                                                                kind: str) -> None:
    make, reason = BAD_FILES[kind]
    raw: bytes = make(_valid_save(store))
    path = store.root / "bad.json"
    path.write_bytes(raw)
    before = snapshot(store.root)
    [entry] = store.entries()
    assert not entry.ok and entry.error is not None and reason in entry.error, entry.error
    assert entry.path == path and not entry.from_backup
    with pytest.raises(SaveError) as err:
        store.load(entry)
    assert err.value.kind == "unreadable" and reason in str(err.value)
    assert str(err.value).startswith("This saved game cannot be opened: ")
    with pytest.raises(SaveError):
        store.rename(entry, "New name")
    assert store.latest_unfinished() is None
    after = snapshot(store.root)
    after.pop(".verified.json", None)
    after.pop(".bad.lock", None)  # rename took the game's lock
    assert after == before  # never modified, never deleted
    store.delete(entry)  # ...unless the player asks
    assert not path.exists()


EDGE_TIMES = ["9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+01:00", "0001-01-01",
              "9999-12-31T23:59:59.999999", "yesterday", "", 12, None, ["2025-01-01"]]


@pytest.mark.parametrize("created", [*EDGE_TIMES[:4], "2025-01-01T10:00:00Z"])
@pytest.mark.parametrize("updated", EDGE_TIMES)
def test_unusable_times_are_ignored_and_repaired(store: SaveStore, created: Any,
                                                 updated: Any) -> None:
    """A time that is damaged or cannot be shown in every time zone (out of datetime's range
    there) does not cost the game: it is listed and opened without that time, and the next
    save writes good times."""
    slot, state = saved_game(store, 5)
    store.close(slot)
    data = json.loads(slot.path.read_text())
    data["extra"].update(created=created, updated=updated)
    slot.path.write_text(json.dumps(data))
    [entry] = store.entries()
    assert entry.ok and not entry.from_backup, entry.error
    assert entry.updated is None and entry.last_played == entry.modified
    assert (entry.created is None) == (created != "2025-01-01T10:00:00Z")
    assert store.latest_unfinished() == entry
    game = store.load(entry)
    assert game.slot is not None
    same_game(game.state, state)
    play(game.state, 1, seed=4)
    store.autosave(game.slot, game.state)
    store.close(game.slot)
    extra = json.loads(slot.path.read_text())["extra"]
    for key in ("created", "updated"):
        assert extra[key].endswith("Z") and datetime.fromisoformat(extra[key]).year == 2025
    [entry] = store.entries()
    assert entry.created is not None and entry.updated is not None
    assert entry.created <= entry.updated


def test_a_slot_whose_creation_time_is_out_of_range_still_saves(store: SaveStore) -> None:
    slot = store.new_game(TWO)
    slot.created = datetime(9999, 12, 31, 23, 59, tzinfo=timezone(timedelta(hours=-14)))
    store.autosave(slot, State(CLASSIC, 2, seed=1))
    extra = json.loads(slot.path.read_text())["extra"]
    assert extra["created"] == extra["updated"] == "2025-01-01T12:02:00.000Z"


def test_huge_files_are_refused_without_reading_them(store: SaveStore,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    store.root.mkdir(parents=True)
    path = store.root / "huge.json"
    with open(path, "wb") as f:
        f.truncate(1 << 30)  # a sparse 1 GB file
    read: list[int] = []
    real = os.read

    def counting(fd: int, n: int) -> bytes:
        data = real(fd, n)
        read.append(len(data))
        return data

    monkeypatch.setattr(os, "read", counting)
    [entry] = store.entries()
    assert entry.error is not None and "too large" in entry.error and "1024.0 MB" in entry.error
    with pytest.raises(SaveError, match="too large"):
        store.load(path)
    assert sum(read) == 0
    # a file just over the limit is refused too; one at the limit is read (and is not JSON)
    path.unlink()
    (store.root / "big.json").write_bytes(b" " * (MAX_SAVE_BYTES + 1))
    (store.root / "limit.json").write_bytes(b"x" * MAX_SAVE_BYTES)
    reasons = {e.path.name: e.error for e in store.entries()}
    assert "too large" in (reasons["big.json"] or "")
    assert "not valid JSON" in (reasons["limit.json"] or "")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_special_files_do_not_hang_the_listing(store: SaveStore) -> None:
    store.root.mkdir(parents=True)
    os.mkfifo(store.root / "pipe.json")
    (store.root / "dir.json").mkdir()
    reasons = {e.path.name: e.error for e in store.entries()}
    assert reasons == {"pipe.json": "it is not a regular file",
                       "dir.json": "it is not a regular file"}


def test_damaged_game_is_restored_from_its_backup(store: SaveStore) -> None:
    slot, state = saved_game(store, 9)
    play(state, 1, seed=9)
    store.autosave(slot, state)
    store.close(slot)
    slot.path.write_bytes(slot.path.read_bytes()[:100])  # damaged by something else
    damaged = slot.path.read_bytes()
    [entry] = store.entries()
    assert entry.ok and entry.from_backup and entry.damage and "cut short" in entry.damage
    assert entry.moves == len(state.history) - 1  # the backup lacks the last move
    game = store.load(entry)
    assert game.from_backup and game.notice and "backup" in game.notice
    assert game.path.name.endswith(".json.bak") and game.slot is not None
    assert game.state.history == state.history[:-1]
    assert slot.path.read_bytes() == damaged  # opening changes nothing
    play(game.state, 1, seed=10)
    store.autosave(game.slot, game.state)  # playing on keeps the damaged file aside
    kept = slot.path.with_name(f"{slot.game_id}.damaged.json")
    assert kept.read_bytes() == damaged
    store.close(game.slot)
    listed = {e.path.name: e for e in store.entries()}
    assert listed[slot.path.name].ok and not listed[slot.path.name].from_backup
    assert not listed[kept.name].ok  # the damaged copy is listed as unreadable
    assert store.load(slot.path, read_only=True).state.history == game.state.history


def test_a_game_saved_by_a_newer_version_is_not_replaced_by_its_backup(
        store: SaveStore) -> None:
    slot, _state = saved_game(store, 4)
    store.close(slot)
    data = json.loads(slot.path.read_text())
    data["version"] = FORMAT_VERSION + 1
    slot.path.write_text(json.dumps(data))
    [entry] = store.entries()
    assert not entry.ok and not entry.from_backup and "update casino-tui" in (entry.error or "")
    with pytest.raises(SaveError, match="newer casino-tui"):
        store.load(entry)
    assert {entry} == {entry}  # entries can be kept in sets


def test_a_backup_without_its_game_file_is_still_listed(store: SaveStore) -> None:
    slot, _state = saved_game(store, 5)
    store.close(slot)
    slot.path.unlink()
    [entry] = store.entries()
    assert entry.ok and entry.from_backup and entry.damage == "the file is missing"
    game = store.load(entry)
    assert game.slot is not None and game.from_backup
    store.autosave(game.slot, game.state)  # the game file is written again
    store.close(game.slot)
    same_game(store.load(slot.path, read_only=True).state, game.state)


def test_unfinished_writes_are_not_games(store: SaveStore) -> None:
    slot, _ = saved_game(store, 2)
    store.close(slot)
    (store.root / f".{slot.path.name}.tmp").write_text('{"format": "casino-tui-ga')
    (store.root / ".other.json.tmp").write_text("")
    assert [e.path for e in store.entries()] == [slot.path]


# ----------------------------------------------------------------------------- disk problems
def _fail(monkeypatch: pytest.MonkeyPatch, name: str, code: int) -> None:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise OSError(code, os.strerror(code))
    monkeypatch.setattr(os, name, boom)


@pytest.mark.parametrize(("call", "code", "kind", "words"), [
    ("write", errno.ENOSPC, "disk_full", "The disk is full: your game could not be saved. "
                                         "Play continues; free some space to save again."),
    ("fsync", errno.EDQUOT, "disk_full", "The disk is full"),
    ("replace", errno.EROFS, "read_only", "is read-only: your game could not be saved"),
    ("open", errno.EACCES, "permission", "may not write in"),
    ("write", errno.EIO, "io", "could not be saved (Input/output error)"),
])
def test_write_failures_keep_the_last_save_and_play_continues(
        store: SaveStore, monkeypatch: pytest.MonkeyPatch, call: str, code: int, kind: str,
        words: str) -> None:
    slot, state = saved_game(store, 6)
    good = slot.path.read_bytes()
    play(state, 1, seed=7)
    with monkeypatch.context() as m:
        _fail(m, call, code)
        with pytest.raises(SaveError) as err:
            store.autosave(slot, state)
    assert err.value.kind == kind and words in str(err.value)
    assert slot.last_error is err.value
    assert slot.path.read_bytes() == good  # the previous save is intact
    assert not [n for n in os.listdir(store.root) if n.endswith(".tmp")]
    play(state, 1, seed=8)  # play continues; the next autosave works again
    store.autosave(slot, state)
    assert slot.last_error is None
    store.close(slot)
    same_game(store.load(slot.path).state, state)


def test_a_data_directory_that_cannot_be_created(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    store = SaveStore(tmp_path / "ro" / "games")
    slot = store.new_game(TWO)
    with monkeypatch.context() as m:
        _fail(m, "mkdir", errno.EROFS)
        with pytest.raises(SaveError) as err:
            store.autosave(slot, State(CLASSIC, 2, seed=1))
    assert err.value.kind == "read_only"
    assert store.entries() == [] and store.latest_unfinished() is None
    store.autosave(slot, State(CLASSIC, 2, seed=1))  # works once the folder can be made
    assert len(store.entries()) == 1


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write in read-only directories")
def test_a_read_only_directory(store: SaveStore) -> None:  # pragma: no cover - not as root
    slot, _state = saved_game(store, 3)
    store.close(slot)
    store.root.chmod(0o555)
    try:
        game = store.load(slot.path)  # opens (no lock can be made)
        assert game.slot is not None
        play(game.state, 1, seed=2)
        with pytest.raises(SaveError) as err:
            store.autosave(game.slot, game.state)
        assert err.value.kind == "permission"
        assert [e.ok for e in store.entries()] == [True]
    finally:
        store.root.chmod(0o755)


@pytest.mark.parametrize(("code", "kind", "words"), [
    (errno.EROFS, "read_only", "is read-only: your game could not be saved"),
    (errno.EACCES, "permission", "may not write in"),
])
def test_a_read_only_folder_without_lock_files(store: SaveStore,
                                               monkeypatch: pytest.MonkeyPatch, code: int,
                                               kind: str, words: str) -> None:
    """Saves copied onto read-only media (or into a folder this user may not write in): no
    lock files, and none can be made. The games are listed and open; saving says why it
    cannot save (not "No such file or directory"), every time; nothing changes. Works as
    root, unlike chmod."""
    slot, _state = saved_game(store, 3)
    store.close(slot)
    for lock in store.root.glob(".*.lock"):
        lock.unlink()
    before = snapshot(store.root)
    with monkeypatch.context() as m:
        read_only_folder(m, store.root, code)
        with pytest.raises(OSError):  # the simulation works
            (store.root / "x").mkdir()
        here = SaveStore(store.root)  # another run of the app
        assert [e.ok for e in here.entries()] == [True]
        game = here.load(here.latest_unfinished() or slot.path)  # opens, without a lock
        assert game.slot is not None
        for seed in (2, 3):  # play continues; each save says why it failed
            play(game.state, 1, seed=seed)
            with pytest.raises(SaveError) as err:
                here.autosave(game.slot, game.state)
            assert err.value.kind == kind and words in str(err.value), str(err.value)
        copy = here.new_game(TWO)
        with pytest.raises(SaveError) as err:  # a new game cannot be saved either
            here.autosave(copy, game.state)
        assert err.value.kind == kind
        here.close(game.slot)
        for change in (lambda: here.rename(slot.path, "New"), lambda: here.delete(slot.path)):
            with pytest.raises(SaveError) as err:
                change()
            assert err.value.kind in (kind, "permission"), err.value
            assert "No such file" not in str(err.value)
    assert snapshot(store.root) == before


# ----------------------------------------------------------------------------- copies, names
def test_save_copy(store: SaveStore) -> None:
    slot, state = saved_game(store, 7)
    copy = store.save_copy(slot, state, "Before the big build")
    assert isinstance(copy, SaveEntry) and copy.ok and copy.name == "Before the big build"
    assert copy.path != slot.path and not copy.in_use
    play(state, 3, seed=4)
    store.autosave(slot, state)  # play continues in the original game
    store.close(slot)
    assert store.load(copy.path, read_only=True).state.history == state.history[:7]
    assert store.load(slot.path, read_only=True).name == "Train"


def test_rename(store: SaveStore) -> None:
    slot, state = saved_game(store, 5)
    other, _ = saved_game(store, 1, seed=9)
    store.close(other)
    before = json.loads(other.path.read_text())
    entry = store.rename(other.path, "  Sunday  ")
    after = json.loads(other.path.read_text())
    assert entry.name == "Sunday" and after["extra"]["name"] == "Sunday"
    after["extra"]["name"] = before["extra"]["name"]
    assert after == before  # nothing else changed (the last played time included)
    assert store.rename(entry, None).name is None
    # the game open in this window: its next autosaves keep the new name
    assert store.rename(slot.path, "Open game").name == "Open game"
    play(state, 1)
    store.autosave(slot, state)
    assert store.entry(slot.path).name == "Open game"
    with pytest.raises(SaveError):
        store.rename(slot.path, "x" * 100)


def test_delete(store: SaveStore) -> None:
    slot, state = saved_game(store, 3)
    play(state, 1)
    store.autosave(slot, state)
    with pytest.raises(SaveError, match="close it"):
        store.delete(slot.path)
    store.close(slot)
    store.delete(store.entries()[0])
    assert os.listdir(store.root) in ([], [".verified.json"])
    with pytest.raises(SaveError):
        store.delete(Path("/etc/passwd"))


# ----------------------------------------------------------------------------- two windows
CHILD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from casino_tui.saves import SaveStore
    store = SaveStore(Path(sys.argv[1]))
    game = store.load(Path(sys.argv[2]))
    print("locked", flush=True)
    sys.stdin.readline()
    store.autosave(game.slot, game.state)
    print("saved", flush=True)
""")


def test_a_game_open_in_another_window(store: SaveStore) -> None:
    slot, state = saved_game(store, 4)
    store.close(slot)
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(store.root), str(slot.path)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline().strip() == "locked"
        with pytest.raises(GameInUseError) as err:
            store.load(slot.path)
        assert str(err.value).startswith("This game is open in another window.")
        game = store.load(slot.path, read_only=True)  # read-only is always possible
        assert game.read_only and game.slot is None
        same_game(game.state, state)
        [entry] = store.entries()
        assert entry.in_use and entry.ok
        assert store.latest_unfinished() is None
        with pytest.raises(GameInUseError):
            store.rename(entry, "Mine")
        with pytest.raises(GameInUseError):
            store.delete(entry)
        child.stdin.write("\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == "saved"
        assert child.wait(10) == 0
    finally:
        if child.poll() is None:  # pragma: no cover - only when the test fails
            child.kill()
            child.wait()
    game = store.load(slot.path)  # the other window is gone: the lock went with it
    assert game.slot is not None
    assert store.entry(slot.path).in_use  # held by this window now


MAKER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from casino_tui.engine import Rules, State
    from casino_tui.saves import SaveStore, Seat
    root, who = Path(sys.argv[1]), sys.argv[2]
    store = SaveStore(root, new_id=lambda t: "same-id")
    for i in range(12):
        slot = store.new_game([Seat.human("A"), Seat.human("B")], f"{who}-{i}")
        store.autosave(slot, State(Rules.preset("classic"), 2, seed=f"{who}-{i}"))
        store.close(slot)
""")


def test_two_instances_never_overwrite_each_others_games(tmp_path: Path) -> None:
    root = tmp_path / "games"
    procs = [subprocess.Popen([sys.executable, "-c", MAKER, str(root), who])
             for who in ("a", "b")]
    assert [p.wait(60) for p in procs] == [0, 0]
    entries = SaveStore(root).entries()
    assert sorted(e.name or "" for e in entries) == sorted(
        f"{who}-{i}" for who in "ab" for i in range(12))
    for e in entries:  # each file holds the game its name says
        assert SaveStore(root).load(e, read_only=True).state.seed == e.name


def test_continue_says_when_the_unfinished_games_are_open_elsewhere(store: SaveStore) -> None:
    assert store.continue_blocked() is None  # no games at all
    a, _ = saved_game(store, 2, seed=1)  # this store is the other window
    here = SaveStore(store.root)
    assert here.latest_unfinished() is None
    assert [e.path for e in here.unfinished_elsewhere()] == [a.path]
    assert (here.continue_blocked() or "").startswith(
        "Your unfinished game is open in another window: play it there, or quit it there and "
        "Continue here.")
    b, _ = saved_game(store, 2, seed=2)
    assert "Your 2 unfinished games are open in other windows" in (here.continue_blocked() or "")
    store.close(a)
    assert here.latest_unfinished() == here.entry(a.path)
    store.close(b)
    assert here.continue_blocked() is None


def test_lock_wait_is_short(store: SaveStore) -> None:
    slot, _ = saved_game(store, 1)
    other = SaveStore(store.root)
    t = time.monotonic()
    with pytest.raises(GameInUseError):
        other.load(slot.path)
    assert time.monotonic() - t < 2


def test_rules_read_twice_are_one_object() -> None:
    """A table's views bring their rules with every update: equal forms give the same rules
    object, whose derived facts are worked out once; other rules give another."""
    from casino_tui.engine import Rules, RulesError

    form = {"preset": "classic", "overrides": {"sweeps_cancel": True}}
    first = Rules.from_dict(dict(form))
    assert Rules.from_dict({"preset": "classic", "overrides": {"sweeps_cancel": True}}) is first
    assert first == Rules.preset("classic", sweeps_cancel=True)
    other = Rules.from_dict({"preset": "classic"})
    assert other is not first and other == Rules.preset("classic")
    with pytest.raises(RulesError):
        Rules.from_dict({"preset": "classic", "overrides": {"no_such_option": 1}})
