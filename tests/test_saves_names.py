"""Saved games as the player sees them in lists: a readable name for a game nobody named, and
one entry (not one more per --load) for a file imported again."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from saves_support import FOUR, TWO, saved_game

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
