"""Killing the game (SIGKILL) while it saves an undo never loses or damages the save: the file
on disk is always complete, and holds either the game before the undo or the game after it
(then marked ``extra.undo``), never anything else.

Each child process opens the same saved game (a person against the computer, the person having
played) as the app does, takes back the person's last play with
``TableController.undo`` (which saves through the same atomic autosave as every move) and ends.
It is killed inside the saving code (at each step of :data:`test_saves_kill.KILL_POINTS`) or
after a random delay. After each death the parent opens the folder as a new run of the app
would: every file loads, the game is one of the two, and what the kill left behind is swept.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import time
from pathlib import Path

import pytest
from test_saves_kill import KILL_POINTS, _install_kill_point, _left_behind

from casino_tui.engine.notation import format_position
from casino_tui.saves import SaveStore, Seat
from casino_tui.table import GameConfig, TableController, autosave, default_seats, loaded_config

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
RANDOM_KILLS = 12
MAX_DELAY = 0.06


def _make_game(root: Path) -> tuple[bytes, str, str]:
    """A saved game in which the person (South) has played: its bytes, and the positions
    before and after an undo."""
    store = SaveStore(root)
    table = TableController(GameConfig(seats=default_seats(2), seed=77))
    for _ in range(5):
        st = table.state
        table.play(st.current_player or 0, st.legal_moves()[0])
    slot = store.new_game(list(_seats()))
    assert autosave(store, slot, table.state) is None
    store.close(slot)
    [path] = root.glob("*.json")
    raw = path.read_bytes()
    before = format_position(table.state)
    table.undo(0)  # this table has no store: nothing is written
    after = format_position(table.state)
    assert after != before
    return raw, before, after


def _seats() -> tuple[Seat, ...]:
    return (Seat.human("South"), Seat.computer("North", "medium"))


def _child(root: Path, point: tuple[str, str, str] | None) -> None:  # pragma: no cover
    try:
        if point is not None:
            _install_kill_point(point, 1, lambda _text: None)
        store = SaveStore(root)
        [entry] = store.entries()
        game = store.load(entry)
        table = TableController(loaded_config(game), game.state, resumed=True,
                                start_position=game.start_position, store=store,
                                slot=game.slot)
        table.undo(0)  # autosaves
        time.sleep(10)  # the parent kills it
    finally:
        os._exit(0)


def test_kill_while_saving_an_undo(tmp_path: Path) -> None:
    root = tmp_path / "games"
    root.mkdir()
    raw, before, after = _make_game(root)
    rng = random.Random(7)
    plan: list[tuple[str, str, str] | None] = [*KILL_POINTS, *[None] * RANDOM_KILLS]
    seen: dict[str, int] = {"before": 0, "after": 0}
    for point in plan:
        for p in root.iterdir():
            p.unlink()
        (root / "20250101-000000-00000000.json").write_bytes(raw)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            _child(root, point)
        deadline = time.monotonic() + (3.0 if point is not None else rng.uniform(0, MAX_DELAY))
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() >= deadline:
                os.kill(pid, signal.SIGKILL)
                done, status = os.waitpid(pid, 0)
                break
            time.sleep(0.001)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, point
        store = SaveStore(root)  # a new run of the app
        [entry] = store.entries()
        assert entry.ok and not entry.from_backup, (point, entry)
        assert not _left_behind(os.listdir(root)), point
        game = store.load(entry, read_only=True)
        position = format_position(game.state)
        marked = json.loads(entry.path.read_text())["extra"].get("undo") is True
        if position == before:
            seen["before"] += 1
            assert not marked and not game.undo, point
        else:
            assert position == after, point
            assert marked and game.undo, point
            seen["after"] += 1
    # kills landed before the new version was in place and after it
    assert seen["before"] >= 3 and seen["after"] >= 3, seen
    print(seen)  # pytest -s shows it
    shutil.rmtree(root)
