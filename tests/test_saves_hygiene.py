"""Hygiene of the games folder: the temporary files and the locks of never-saved games that a
killed process leaves behind are removed the next time the folder is used (listed, a game
opened or saved), never one that a live process holds, and never shown to players.

Kills in the middle of real saves, with a new run checked after each: tests/test_saves_kill.py.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from saves_support import TWO, play, read_only_folder, saved_game

from casino_tui.engine import Rules, State
from casino_tui.saves import GameInUseError, SaveSlot, SaveStore
from casino_tui.saves import files as save_files
from casino_tui.saves import store as save_store


@pytest.fixture
def store(tmp_path: Path) -> SaveStore:
    return SaveStore(tmp_path / "games")


def files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(root.iterdir())}


def dead_pid() -> int:
    """The id of a process that has ended."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def leave_litter(root: Path, game: str, unsaved: str, pid: int) -> list[str]:
    """What a process killed while saving leaves: half-written temporary files of a game and
    of its backup, the lock of a new game whose first save never completed, the listing
    cache's temporary file. Returns their names."""
    litter = {
        f".{game}.json.tmp": b'{"format": "casino-tui-ga',
        f".{game}.json.bak.tmp": b"",
        f".{unsaved}.lock": b"",
        f".{unsaved}.json.tmp": b"{",
        f"..verified.json.{pid}.a1b2c3.tmp": b'{"format"',
    }
    for name, data in litter.items():
        (root / name).write_bytes(data)
    return sorted(litter)


def a_saved_game(store: SaveStore) -> tuple[SaveSlot, State]:
    slot, state = saved_game(store, 6)
    store.close(slot)
    return slot, state


USES: dict[str, Callable[[SaveStore, Path], Any]] = {
    "listing": lambda s, _p: s.entries(),
    "continue": lambda s, _p: s.latest_unfinished(),
    "opening": lambda s, p: s.close(s.load(p).slot),
    "saving a new game": lambda s, _p: s.close(_new_saved(s)),
}


def _new_saved(store: SaveStore) -> SaveSlot:
    slot = store.new_game(TWO)
    store.autosave(slot, State(Rules.preset("classic"), 2, 5))
    return slot


@pytest.mark.parametrize("use", list(USES))
def test_what_a_killed_process_left_is_swept_the_next_time(store: SaveStore,
                                                           use: str) -> None:
    slot, state = a_saved_game(store)
    game = slot.path.read_bytes()
    lock = f".{slot.game_id}.lock"
    litter = leave_litter(store.root, slot.game_id, "20250101-120000-deadbeef", dead_pid())
    assert [e.path for e in store.entries(verify=False)] == [slot.path]  # never shown
    USES[use](SaveStore(store.root), slot.path)  # the next run of the app uses the folder
    left = sorted(os.listdir(store.root))
    assert not set(litter) & set(left), left
    assert lock in left  # the lock of a saved game stays: the game uses it
    assert slot.path.read_bytes() == game  # no save changed
    assert SaveStore(store.root).load(slot.path, read_only=True).state.history == state.history


HOLDER = textwrap.dedent("""
    import fcntl, os, sys
    from pathlib import Path
    from casino_tui.saves import SaveStore

    root, game, unsaved = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    store = SaveStore(root)
    loaded = store.load(root / (game + ".json"))  # plays the game: holds its lock
    fd = os.open(root / ("." + unsaved + ".lock"), os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)  # a new game's first save, under way
    print("ready", flush=True)
    sys.stdin.read()
""")


@pytest.fixture
def holder(store: SaveStore) -> Iterator[tuple[subprocess.Popen[str], SaveSlot, str]]:
    """Another process that plays a saved game and is saving a new one (it holds both
    locks), until its standard input is closed."""
    slot, _state = a_saved_game(store)
    unsaved = "20250101-120000-0badf00d"
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(store.root), slot.game_id,
                             unsaved], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        yield proc, slot, unsaved
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.skipif(sys.platform == "win32", reason="the holder locks with fcntl")
def test_files_a_live_process_holds_are_kept(
        store: SaveStore, holder: tuple[subprocess.Popen[str], SaveSlot, str]) -> None:
    proc, slot, unsaved = holder
    # the holder's temporary files, as if it were writing them now
    held = [f".{slot.game_id}.json.tmp", f".{slot.game_id}.json.bak.tmp",
            f".{unsaved}.json.tmp", f".{unsaved}.lock", f"..verified.json.{proc.pid}.a1b2c3.tmp"]
    for name in held[:3] + held[4:]:
        (store.root / name).write_bytes(b"{")
    before = files(store.root)
    here = SaveStore(store.root)  # another window, used in every way
    entries = here.entries()
    assert [(e.path, e.in_use) for e in entries] == [(slot.path, True)]  # no litter shown
    assert here.latest_unfinished() is None
    with pytest.raises(GameInUseError):
        here.load(slot.path)
    here.close(_new_saved(here))
    after = files(store.root)
    assert {n: after.get(n) for n in before} == before  # nothing it holds was removed
    # the holder is killed: its files are litter now, and the next use sweeps them
    proc.kill()
    proc.wait()
    SaveStore(store.root).entries()
    left = set(os.listdir(store.root))
    assert not set(held) & left, left
    assert slot.path.read_bytes() == before[slot.path.name]


def test_a_lock_removed_before_it_is_taken_is_taken_again(store: SaveStore,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """The lock file a window opened is removed before it locks it (by a sweep, or by the
    game's deletion, each holding it): the window must not keep a lock on a removed file, or
    two windows could hold one game. It locks the file that is there now."""
    slot, _state = a_saved_game(store)
    lock = store.root / f".{slot.game_id}.lock"
    real = save_files._lock_nb
    removed: list[int] = []

    def removed_first(fd: int, *, shared: bool = False) -> None:
        if not removed:
            removed.append(fd)
            lock.unlink()  # what a sweep holding it does, just before our lock
        real(fd, shared=shared)

    monkeypatch.setattr(save_files, "_lock_nb", removed_first)
    game = store.load(slot.path)
    monkeypatch.undo()
    assert removed and game.slot is not None
    with pytest.raises(GameInUseError):  # another window cannot have it too
        SaveStore(store.root).load(slot.path)
    store.close(game.slot)


def test_a_new_games_lock_swept_before_it_is_taken_is_made_again(
        store: SaveStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new game's first save makes its lock; a sweep in another window may hold it and
    remove it (no game file yet) before the save locks it: the save makes it again."""
    store.root.mkdir(parents=True)
    real = save_store._lock_nb
    seen: list[str] = []

    def swept(fd: int, *, shared: bool = False) -> None:
        if len(seen) < 2:
            name = next(n for n in os.listdir(store.root) if n.endswith(".lock"))
            seen.append(name)
            (store.root / name).unlink()
            if len(seen) == 1:  # first: the sweep still holds it
                raise BlockingIOError(errno.EAGAIN, "locked")
        real(fd, shared=shared)  # second: it was removed just before our lock

    monkeypatch.setattr(save_store, "_lock_nb", swept)
    slot = _new_saved(store)
    monkeypatch.undo()
    assert len(seen) == 2
    with pytest.raises(GameInUseError):
        SaveStore(store.root).load(slot.path)
    store.close(slot)
    assert [e.path for e in store.entries()] == [slot.path]


def test_a_read_only_folder_keeps_its_litter_and_its_games(
        store: SaveStore, monkeypatch: pytest.MonkeyPatch) -> None:
    slot, state = a_saved_game(store)
    leave_litter(store.root, slot.game_id, "20250101-120000-deadbeef", dead_pid())
    before = files(store.root)
    with monkeypatch.context() as m:
        read_only_folder(m, store.root)
        here = SaveStore(store.root)
        assert [e.ok for e in here.entries()] == [True]
        game = here.load(slot.path)
        play(game.state, 1, seed=4)
        assert game.state.history[: len(state.history)] == state.history
    assert files(store.root) == before
