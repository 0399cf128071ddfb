"""Saved games as the player sees them in lists: a readable name for a game nobody named, and
one entry (not one more per --load) for a file imported again."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from saves_support import EXAMPLES_DIR, FOUR, TWO, play, saved_game

from casino_tui.saves import SaveStore, Seat, game_title


class Clock:
    def __init__(self) -> None:
        self.t = datetime(2026, 11, 23, 20, 17, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.t += timedelta(seconds=1)
        return self.t


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def store(tmp_path: Path) -> SaveStore:
    return SaveStore(tmp_path / "games", clock=Clock())


def test_a_game_nobody_named_is_listed_by_rules_players_and_start(store: SaveStore,
                                                                  utc: None) -> None:
    start = datetime(2026, 11, 23, 20, 17, 56, tzinfo=UTC)
    assert game_title("classic", TWO, ((0,), (1,)), start) == (
        "Standard Cassino · you vs Medium · 23 Nov 20:17")
    people = (Seat.human("Ann"), Seat.human("Bob"), Seat.computer("Cy", "hard"))
    assert game_title("royal", people, ((0,), (1,), (2,)), start) == (
        "Royal Cassino · Ann vs Bob, Hard · 23 Nov 20:17")
    assert game_title("french_casino_seed000", FOUR, ((0, 2), (1, 3)), start) == (
        "French Casino · you & Hard vs Easy & Random · 23 Nov 20:17")
    slot, _ = saved_game(store, 2, name=None, seats=FOUR)
    store.close(slot)
    [entry] = store.entries()
    assert entry.name is None
    assert entry.title == "Standard Cassino · you & Hard vs Easy & Random · 23 Nov 20:17"
    (store.root / "junk.json").write_text("{")
    assert store.entry(store.root / "junk.json").title == "junk"  # not a game: its file


def import_and_play(store: SaveStore, path: Path, moves: int = 0) -> Path:
    """--load ``path``, play ``moves`` moves and leave the game; the copy's path."""
    game = store.load(path)
    assert game.slot is not None
    store.autosave(game.slot, game.state)  # the game screen saves at once
    if moves:
        play(game.state, moves, seed=4, store=store, slot=game.slot)
    store.close(game.slot)
    return game.slot.path


def test_loading_the_same_file_again_opens_its_copy(store: SaveStore, tmp_path: Path) -> None:
    source = tmp_path / "mid-round-builds.json"
    shutil.copy(EXAMPLES_DIR / "mid-round-builds.json", source)
    first = import_and_play(store, source)
    again = store.load(source)
    assert again.slot is not None and again.slot.path == first
    assert again.notice and "before" in again.notice
    store.close(again.slot)
    assert [e.title for e in store.entries()] == ["Builds on the table"]
    # played on since: the file is imported again, as a second copy with its own name
    import_and_play(store, source, moves=2)
    second = import_and_play(store, source)
    assert second != first
    titles = sorted(e.title for e in store.entries())
    assert titles == ["Builds on the table", "Builds on the table (2)"]
    assert import_and_play(store, source) == second  # now the unplayed second copy opens
    # another file with the same name but other contents is another game
    data = json.loads(source.read_text())
    data["extra"]["name"] = None
    source.write_text(json.dumps(data))
    third = import_and_play(store, source)
    assert third not in (first, second) and len(store.entries()) == 3
    assert store.entry(third).title.startswith("Standard Cassino · you vs Medium · ")
