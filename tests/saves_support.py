"""Helpers shared by the saved-games tests."""

from __future__ import annotations

import builtins
import errno
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from casino_tui.engine import Rules, State
from casino_tui.saves import SaveSlot, SaveStore, Seat

REPO = Path(__file__).resolve().parent.parent
EXAMPLES_DIR = REPO / "saves"

TWO = (Seat.human("Ann"), Seat.computer("Bob", "medium"))
FOUR = (Seat.human("South"), Seat.computer("West", "easy"), Seat.computer("North", "hard"),
        Seat.computer("East", "random"))


def random_move(state: State, rng: random.Random) -> None:
    """Play one random legal move (starting the next round first if one is over)."""
    if state.is_round_over:
        state.next_round()
        return
    legal = [m for m in state.legal_moves() if m.kind != "claim"] or state.legal_moves()
    state.apply(rng.choice(legal))


def play(state: State, moves: int, seed: int = 0, store: SaveStore | None = None,
         slot: SaveSlot | None = None) -> State:
    """Up to ``moves`` random moves, autosaving after each one when a slot is given."""
    rng = random.Random(seed)
    for _ in range(moves):
        if state.is_game_over:
            break
        random_move(state, rng)
        if store is not None and slot is not None:
            store.autosave(slot, state)
    return state


def saved_game(store: SaveStore, moves: int = 12, *, seed: int = 3, name: str | None = "Train",
               seats: tuple[Seat, ...] = TWO, rules: Rules | None = None) -> tuple[SaveSlot,
                                                                                   State]:
    """A game of ``len(seats)`` players saved after ``moves`` random moves (slot still open)."""
    state = State(rules or Rules.preset("classic"), len(seats), seed)
    slot = store.new_game(seats, name)
    store.autosave(slot, state)
    play(state, moves, seed)
    store.autosave(slot, state)
    return slot, state


_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND | os.O_EXCL
_CHANGES = ("mkdir", "rmdir", "replace", "rename", "link", "symlink", "unlink", "remove",
            "truncate", "chmod", "utime")


def read_only_folder(m: pytest.MonkeyPatch, root: Path, code: int = errno.EROFS) -> None:
    """Make ``root`` act as a folder on read-only media (``EROFS``) or one this user may not
    write in (``EACCES``), even for root (who may write in any folder; tests run as root in
    CI): every call of ``os`` (and ``open``) that would change something in it fails with
    ``code``. Reading and locking still work. Undone with the monkeypatch."""
    top = os.path.realpath(root)

    def inside(*paths: Any) -> bool:
        for p in paths:
            if not isinstance(p, str | bytes | os.PathLike):
                continue
            real = os.path.realpath(os.fsdecode(p))
            if real == top or real.startswith(top + os.sep):
                return True
        return False

    def fail(name: str, path: Any) -> OSError:
        return OSError(code, os.strerror(code), os.fsdecode(path))

    def guarded(name: str, real: Callable[..., Any], paths: int) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            if inside(*args[:paths]):
                raise fail(name, args[0])
            return real(*args, **kwargs)
        return call

    real_open = os.open

    def os_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & _WRITE_FLAGS and inside(path):
            raise fail("open", path)
        return real_open(path, flags, *args, **kwargs)

    real_builtin_open = builtins.open

    def builtin_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if any(c in mode for c in "wax+") and inside(file):
            raise fail("open", file)
        return real_builtin_open(file, mode, *args, **kwargs)

    m.setattr(os, "open", os_open)
    m.setattr(builtins, "open", builtin_open)
    for name in _CHANGES:
        m.setattr(os, name, guarded(name, getattr(os, name), 2))


def full_disk(m: pytest.MonkeyPatch, root: Path) -> None:
    """Make the disk of ``root`` act full: files are still created and renamed (as on a real
    disk, which has room for names), but writing data into a file opened in ``root`` fails
    with ``ENOSPC``, as ``write()`` does on a full disk. Undone with the monkeypatch."""
    top = os.path.realpath(root)
    full: set[int] = set()
    real_open, real_write, real_close = os.open, os.write, os.close

    def os_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        fd = real_open(path, flags, *args, **kwargs)
        real = os.path.realpath(os.fsdecode(path))
        if flags & _WRITE_FLAGS and (real == top or real.startswith(top + os.sep)):
            full.add(fd)
        return fd

    def os_write(fd: int, data: Any) -> int:
        if fd in full and len(data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    def os_close(fd: int) -> None:
        full.discard(fd)
        real_close(fd)

    m.setattr(os, "open", os_open)
    m.setattr(os, "write", os_write)
    m.setattr(os, "close", os_close)
